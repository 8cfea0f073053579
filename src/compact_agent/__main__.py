"""`compact-agent` and `python -m compact_agent`: the command-line agent, if its extra is installed.

The library (`compact_agent.context`) needs only pydantic-ai; the terminal agent also needs
typer, rich, prompt_toolkit, pydantic-settings, platformdirs and the provider SDKs, installed by
the `cli` extra. Without them the command says so in one line instead of a traceback.

Loading the command line takes half a second or more (typer, pydantic). A `-p` run has its
SIGTERM and SIGHUP handler in place before that (`arm_print_mode`), and a Ctrl-C then is caught
here (`compact-agent: interrupted`, exit 130, as later): either says so in one line (with
`--output-format json`, the result object too), where the run ended by the signal with nothing
written, or with a traceback. Only the interpreter's own start and this module's few imports come before.
"""

from __future__ import annotations

import re
import sys

CLI_MODULES = ("typer", "rich", "prompt_toolkit", "pydantic_settings", "platformdirs", "openai")


def install_cli_command() -> str:
    """How to add the extra to this install. compact-agent is not on a package index, so never by its
    bare name (which would fetch whatever an index holds under it): from the checkout pip installed it
    from, as pip recorded it (direct_url.json, PEP 610), else from a path the user fills in."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

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


def print_args(args: list[str]) -> tuple[bool, bool]:
    """Whether `args` ask for print mode (`-p`, `--print`, `-p` among short flags written together)
    and, if so, for a result object on stdout (`--output-format json` or `stream-json`), read before
    any `--` without the command line's definitions, which are not loaded yet: a value that looks like
    `-p` is taken for it (the command line then refuses it, or says nothing different)."""
    given = args[:args.index("--")] if "--" in args else args
    printing = any(a == "--print" or re.fullmatch(r"-[a-zA-Z]*p[a-zA-Z]*", a) for a in given)
    formats = [given[i + 1] for i, a in enumerate(given[:-1]) if a == "--output-format"]
    formats += [a.partition("=")[2] for a in given if a.startswith("--output-format=")]
    return printing, printing and any(f in ("json", "stream-json") for f in formats)


def arm_print_mode(args: list[str]) -> None:
    """A `-p` run: SIGTERM and SIGHUP say so from now on, before the seconds the command line takes to
    load (stop_signals.py; print mode arms them again with what it knows)."""
    printing, as_json = print_args(args)
    if printing:
        from .stop_signals import say_when_terminated

        say_when_terminated(json_result=as_json)


def main() -> None:
    try:
        arm_print_mode(sys.argv[1:])
        try:
            from .cli import main as cli_main
        except ModuleNotFoundError as e:
            if e.name and e.name.split(".")[0] in CLI_MODULES:
                sys.stderr.write(f"compact-agent: the command-line agent needs the 'cli' extra ({e.name} is not "
                                 f"installed): {install_cli_command()}\n")
                raise SystemExit(1) from None
            raise
        cli_main()
    except KeyboardInterrupt:  # while the command line loads, or before it parses (cli.main has its own after)
        from .stop_signals import interrupted

        raise SystemExit(interrupted()) from None


if __name__ == "__main__":
    main()
