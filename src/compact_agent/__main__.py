"""`compact-agent` and `python -m compact_agent`: the command-line agent, if its extra is installed.

The library (`compact_agent.context`) needs only pydantic-ai; the terminal agent also needs
typer, rich, prompt_toolkit, pydantic-settings, platformdirs and the provider SDKs, installed by
the `cli` extra. Without them the command says so in one line instead of a traceback.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from urllib.parse import unquote, urlparse

CLI_MODULES = ("typer", "rich", "prompt_toolkit", "pydantic_settings", "platformdirs", "openai")


def install_cli_command() -> str:
    """How to add the extra to this install. compact-agent is not on a package index, so never by its
    bare name (which would fetch whatever an index holds under it): from the checkout pip installed it
    from, as pip recorded it (direct_url.json, PEP 610), else from a path the user fills in."""
    try:  # the install pip recorded: an egg-info a checkout leaves in src/ may come first on the path
        raw = next((r for d in metadata.distributions(name="compact-agent") if (r := d.read_text("direct_url.json"))),
                   None)
        origin = json.loads(raw or "{}")
    except (OSError, ValueError):
        origin = {}
    url = origin.get("url", "") if isinstance(origin, dict) else ""
    if not (isinstance(url, str) and url.startswith("file://")):
        return "pip install '/path/to/compact-agent[cli]' (the path to its checkout)"
    info = origin.get("dir_info")
    editable = "-e " if isinstance(info, dict) and info.get("editable") else ""
    return f"pip install {editable}'{unquote(urlparse(url).path)}[cli]'"


def main() -> None:
    try:
        from .cli import main as cli_main
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] in CLI_MODULES:
            sys.stderr.write(f"compact-agent: the command-line agent needs the 'cli' extra ({e.name} is not "
                             f"installed): {install_cli_command()}\n")
            raise SystemExit(1) from None
        raise
    cli_main()


if __name__ == "__main__":
    main()
