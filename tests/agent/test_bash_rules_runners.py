"""An allow rule covers a word that makes a command run another command, delete or write files only
where the rule spells that word out (bash_rules._keys): `find *` covered `find . -exec rm {} +`,
`xargs *` `xargs rm`, `bash *` `bash -c '…'`, unasked. A deny rule sees what find runs: `rm *` let
`find . -exec rm {} +` through. Checked against what real bash and find start, with PATH holding
only recorders (as test_bash_rules_bypass_bash.py does)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from compact_agent.agent.safety.bash_rules import allowed_by, denied_by, why_not_allowed

NAMES = ["rm", "grep", "pytest", "touch"]


@pytest.fixture(scope="module")
def jail(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("jail")
    (root / "bin").mkdir()
    for name in NAMES:
        recorder = root / "bin" / name
        recorder.write_text('#!/bin/sh\nprintf "%s\\n" "${0##*/}" >> "$RECORD"\n')
        recorder.chmod(0o755)
    for real in ("find", "xargs", "env", "timeout", "bash"):
        found = shutil.which(real)
        assert found is not None, real
        (root / "bin" / real).symlink_to(found)
    return root


def ran(jail: Path, line: str) -> tuple[list[str], list[str]]:
    """What bash started for `line` (of the recorders), and the files left where it ran."""
    work = jail / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    (work / "victim").write_text("x")
    record = jail / "record"
    record.write_text("")
    env = {"PATH": str(jail / "bin"), "RECORD": str(record), "HOME": str(work)}
    subprocess.run(["/bin/bash", "-c", line], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                   timeout=10)
    return record.read_text().split(), sorted(f.name for f in work.iterdir())


# (the line, a rule that seemed to cover it, what bash starts that the rule did not name, or the file it deletes)
RUNS_MORE = [
    ("find . -name victim -exec rm {} +", "find *", "rm"),
    ("find . -name victim -execdir rm {} \\;", "find *", "rm"),
    ("find . -name victim -exec grep x {} \\; -exec rm {} \\;", "find * -exec grep *", "rm"),
    ("find . -name '-exec grep' -o -name victim -exec rm {} \\;", "find * -exec grep *", "rm"),
    ("find . -name victim -delete", "find *", "victim"),
    ("printf 'victim\\n' | xargs rm", "xargs *", "rm"),
    ("env rm victim", "env *", "rm"),
    ("timeout 5 rm victim pytest x", "timeout * pytest *", "rm"),
    ("bash -c 'rm victim'", "bash *", "rm"),
]


@pytest.mark.parametrize("line, rule, hidden", RUNS_MORE)
def test_a_rule_does_not_cover_what_it_did_not_spell_out(jail: Path, line: str, rule: str, hidden: str) -> None:
    started, files = ran(jail, line)
    assert hidden in started if hidden in NAMES else hidden not in files, (line, started, files)  # bash does it
    rules = [rule, "printf *"]
    assert not allowed_by(line, rules), line
    assert "only a rule that spells it out covers it" in (why_not_allowed(line, rules) or ""), why_not_allowed(line, rules)


@pytest.mark.parametrize("line, rule", [
    ("find . -name victim", "find *"),
    ("find . -name victim -exec grep x {} +", "find * -exec grep *"),
    ("find . -name victim -delete", "find * -delete"),
    ("printf 'victim\\n' | xargs grep -n x", "xargs grep *"),
    ("timeout 5 pytest -q", "timeout * pytest *"),
    ("env pytest -q", "env pytest *"),
    ("bash -c 'pytest -q'", "bash -c *"),
])
def test_a_rule_that_spells_it_out_covers_it(jail: Path, line: str, rule: str) -> None:
    assert allowed_by(line, [rule, "printf *"]), line
    started, _ = ran(jail, line)
    assert "rm" not in started and "touch" not in started, started


@pytest.mark.parametrize("line", [
    "find . -name victim -exec rm {} +", "find . -execdir rm -f {} \\;", "sudo find / -ok rm {} ';'",
    "find . -exec env rm {} +", "find . -name x -o -exec /bin/rm {} +",
])
def test_a_deny_rule_sees_what_find_runs(jail: Path, line: str) -> None:
    assert denied_by(line, ["rm *"]) == "rm *", line


def test_find_runs_rm_for_real(jail: Path) -> None:
    """The oracle: find starts the rm a deny rule is to see."""
    assert ran(jail, "find . -name victim -exec rm {} +")[0] == ["rm"]
