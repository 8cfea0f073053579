"""What lets the zygote (zygote.py) build the command line's click command once for every run it
forks: building it from the Typer app reads nothing of the environment, the current directory,
the files or the terminal, so the command a forked run reads its line with is the one a fresh
`compact-agent` builds for itself."""

from __future__ import annotations

import builtins
import io
import os
import shutil
from collections.abc import Iterator, MutableMapping

import pytest
import typer.main

from compact_agent import cli


class _Reads(MutableMapping[str, str]):
    """os.environ, noting every variable read (and a walk over them all)."""

    def __init__(self, env: MutableMapping[str, str], read: list[str]) -> None:
        self.env, self.read = env, read

    def __getitem__(self, key: str) -> str:
        self.read.append(f"environment {key}")
        return self.env[key]

    def __setitem__(self, key: str, value: str) -> None:
        self.env[key] = value

    def __delitem__(self, key: str) -> None:
        del self.env[key]

    def __iter__(self) -> Iterator[str]:
        self.read.append("environment (all of it)")
        return iter(self.env)

    def __len__(self) -> int:
        return len(self.env)


def test_building_the_command_line_reads_nothing_of_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    monkeypatch.setattr(os, "environ", _Reads(os.environ, read))
    for module, name in ((os, "getcwd"), (os, "get_terminal_size"), (shutil, "get_terminal_size"), (os, "listdir"),
                         (os, "scandir"), (os, "open"), (io, "open"), (builtins, "open")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _name=name, _real=real, **k: (read.append(_name), _real(*a, **k))[1])
    command = typer.main.get_command(cli.app)
    monkeypatch.undo()
    assert read == []
    assert {"config", "sessions", "analyze"} <= set(command.commands)  # the whole command line was built
