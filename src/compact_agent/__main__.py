"""`compact-agent` and `python -m compact_agent`: the command-line agent, if its extra is installed.

The library (`compact_agent.context`) needs only pydantic-ai; the terminal agent also needs
typer, rich, prompt_toolkit, pydantic-settings, platformdirs and the provider SDKs, installed by
the `cli` extra. Without them the command says so in one line instead of a traceback.
"""

from __future__ import annotations

import sys

CLI_MODULES = ("typer", "rich", "prompt_toolkit", "pydantic_settings", "platformdirs", "openai")


def main() -> None:
    try:
        from .cli import main as cli_main
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] in CLI_MODULES:
            sys.stderr.write(f"compact-agent: the command-line agent needs the 'cli' extra ({e.name} is not "
                             "installed): pip install 'compact-agent[cli]'\n")
            raise SystemExit(1) from None
        raise
    cli_main()


if __name__ == "__main__":
    main()
