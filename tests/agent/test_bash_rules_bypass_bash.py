"""What the bash rules vouch for agrees with what bash itself runs.

Lines are built from pieces that parted the rule check from bash (comments, `$'…'`, `$[_]`,
`${_@P}`, escaped substitutions, here-documents, line joins, carriage returns) and run under
`bash -c` with PATH holding only recorders: each command bash starts writes its name to a log. A line
an allow rule covers (`pytest *`, `ls *`) may start only `pytest` and `ls`, and write no file; a line
no deny rule refuses (`touch *`, `id *`, `rm *`) may start none of those.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compact_agent.agent.safety.bash_rules import allowed_by, denied_by

ALLOW = ["pytest *", "pytest", "ls *", "ls"]
DENY = ["touch *", "id *", "rm *"]
NAMES = ["pytest", "ls", "touch", "id", "rm", "x"]
PIECES = [
    *NAMES, "--version", "-q", "#", "#'", '#"', "'#'", "a#b", "'", '"', "\\'", "$'\\''", "$'a'", '$"a"',
    ";", "&&", "|", "||", "&", "(", ")", "{", "}", "\n", "\r", "\\\n", "\\", ">", ">>", "2>&1", "/dev/null",
    "out", "<", "<<EOF", "EOF", "<<<", "$_", "$[_]", "$[1]", "${_@P}", "${a[_]}", "${HOME:_}", "$((_))",
    "$HOME", "${HOME}", "$(touch made)", "`touch made`", r"x\[\$\(touch\ made\)\]", "'x[$''(touch made)]'",
    "*", "{touch,made}", "eval", "env", "printf", "-v", "'a[_]'", "echo", "t\\\nouch", "$'\\x74ouch'",
    "$\\\n", "(\\\n(_))", "((_))", "let", "[[", "-eq", "]]", "[", "]", "read", "declare", "-i", "x=_", "a[_]=1",
    "if", "then", "fi", "case", "in", "esac", "function", "f", "f()", "$X", "X=touch", "bash", "-c",
]
#: Pieces of lines the rules cover, so that many generated lines are covered (and bash checks them).
PLAIN = ["pytest", "ls", "-q", "x", "$HOME", "#", "2>&1", "\n", ";", "|"]
TRIAL = [
    "pytest --version #'\ntouch made #'", 'pytest --version #"\nid > made #"', "ls #'\ntouch made #'",
    "pytest --version $'\\'' ; id > made ; pytest --version \\'",
    r"pytest --version x\[\$\(touch\ made\)\]; pytest --version $[_]",
    r"pytest --version \$\(touch\ made\); pytest --version ${_@P}",
    "pytest --version 'x[$''(touch made)]'; pytest --version $[_]",
    r"ls x\[\$\(touch\ made\)\]; ls ${a[_]}", r"ls x\[\$\(touch\ made\)\]; ls ${HOME:_}",
]


@pytest.fixture(scope="module")
def jail(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("jail")
    (root / "bin").mkdir()
    for name in NAMES:
        recorder = root / "bin" / name
        # started as a program, not read as a script by `bash touch` (which no real program would be)
        recorder.write_text('#!/bin/sh\ncase $0 in */*) printf "%s\\n" "${0##*/}" >> "$RECORD";; esac\n')
        recorder.chmod(0o755)
    (root / "bin" / "bash").symlink_to("/bin/bash")  # `bash -c '…'` runs its line with the recorders too
    return root


def ran(jail: Path, line: str) -> tuple[list[str], list[str]]:
    """The commands bash started for `line`, and the files it left in its working directory."""
    work = jail / "work"
    if work.exists():
        for f in work.iterdir():
            f.unlink()
    else:
        work.mkdir()
    record = jail / "record"
    record.write_text("")
    env = {"PATH": str(jail / "bin"), "RECORD": str(record), "HOME": str(work)}
    subprocess.run(["/bin/bash", "-c", line], cwd=work, env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=10)
    return record.read_text().split(), sorted(f.name for f in work.iterdir())


def agrees(jail: Path, line: str) -> None:
    covered, denied = allowed_by(line, ALLOW), denied_by(line, DENY)
    if not covered and denied:
        return
    started, files = ran(jail, line)
    if covered:
        assert set(started) <= {"pytest", "ls"} and not files, (line, started, files)
    if not denied:
        assert not set(started) & {"touch", "id", "rm"}, (line, started)


@pytest.mark.parametrize("line", TRIAL)
def test_the_trial_lines_run_nothing_the_rules_did_not_vouch_for(jail: Path, line: str) -> None:
    assert not allowed_by(line, ALLOW) and denied_by(line, DENY), line
    agrees(jail, line)


def test_the_recorders_record(jail: Path) -> None:
    """The oracle works: bash runs what the line hides, and the recorders see it."""
    assert ran(jail, TRIAL[0])[0] == ["pytest", "touch"]
    assert ran(jail, TRIAL[4])[0] == ["pytest", "touch", "pytest"]  # expanded before it starts
    assert ran(jail, "pytest > out")[1] == ["out"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.one_of(st.sampled_from(PLAIN), st.sampled_from(PIECES)), st.sampled_from(["", " ", " ", "\t"])), min_size=1, max_size=9))
@example([("pytest", " "), ("-q", " "), ("#", ""), ("'", ""), ("\n", ""), ("touch", " "), ("made", "")])
def test_bash_runs_only_what_the_rules_vouch_for(jail: Path, pieces: list[tuple[str, str]]) -> None:
    line = "".join(piece + gap for piece, gap in pieces)
    if line.strip():
        agrees(jail, line)


def test_bash_is_there() -> None:
    assert os.access("/bin/bash", os.X_OK)
