"""What a library user installs: pydantic-ai alone; the terminal agent's dependencies are the `cli` extra."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

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


def test_an_egg_info_first_on_the_path_does_not_hide_the_install_pip_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A checkout leaves src/compact_agent.egg-info, which records no origin; put first on the path
    # (as a test runner may put src/), it hid the install pip recorded and the line said '/path/to'.
    recorded = install_cli_command()
    if "/path/to/" in recorded:
        pytest.skip("this install has no origin recorded by pip")
    stale = tmp_path / "compact_agent.egg-info"
    stale.mkdir()
    (stale / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: compact-agent\nVersion: 0.1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert install_cli_command() == recorded
