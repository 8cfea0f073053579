"""What a library user installs: pydantic-ai alone; the terminal agent's dependencies are the `cli` extra."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

from compact_agent.__main__ import install_cli_command

CLI_ONLY = ("rich", "typer", "prompt-toolkit", "prompt_toolkit", "pydantic-settings", "platformdirs")


def _name(requirement: str) -> str:
    return requirement.split(";")[0].split("[")[0].split("<")[0].split(">")[0].split("=")[0].strip().lower()


def test_the_base_install_needs_no_cli_dependency() -> None:
    reqs = metadata.requires("compact-agent") or []
    base = [_name(r) for r in reqs if "extra ==" not in r]
    cli = [_name(r) for r in reqs if 'extra == "cli"' in r]
    assert base == ["pydantic-ai-slim"]
    assert {"rich", "typer", "prompt-toolkit", "pydantic-settings", "platformdirs"} <= {n.replace("_", "-") for n in cli}


def test_the_command_without_its_extra_says_how_to_get_it() -> None:
    code = "import sys; sys.modules['typer'] = None; from compact_agent.__main__ import main; main()"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr == ("compact-agent: the command-line agent needs the 'cli' extra (typer is not installed): "
                           f"{install_cli_command()}\n")
