"""`compact-agent config` shows the control characters of an untrusted project's settings file as
their escapes, never as the bytes: an unknown key `ESC]52;c;...BEL` (a terminal's clipboard) in the
warning line and a deny_paths rule `ESC]0;TITLE BEL` (the window's title) were written raw to the
terminal. `--json` stays JSON that reads back to the same values, with C1 controls and
bidirectional overrides (which json.dumps leaves as they are) written as JSON escapes."""

from __future__ import annotations

import json

HOSTILE = ('"\\u001b]52;c;SGVsbG8=\\u0007modle" = 1\n"\\u009b31m\\u202eflip" = 2\n'
           '[permissions]\ndeny_paths = ["\\u001b]0;TITLE\\u0007"]\n')
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def test_config_table_shows_the_escapes(cli) -> None:
    (cli.cwd / ".compact-agent.toml").write_text(HOSTILE)
    out = cli("config")
    assert out.code == 0, out.stderr
    assert not [c for c in RAW if c in out.stdout + out.stderr], out.stdout
    rows = out.stdout.splitlines()
    assert any(r.startswith("deny_paths") and "\\x1b]0;TITLE\\x07" in r and r.endswith("project file") for r in rows)
    assert any(r.startswith("warning: ") and r.endswith("unknown setting \\x1b]52;c;SGVsbG8=\\x07modle; ignored")
               for r in rows), rows
    assert any(r.endswith("unknown setting \\x9b31m\\u202eflip; ignored") for r in rows), rows


def test_config_json_stays_json_with_the_same_values(cli) -> None:
    (cli.cwd / ".compact-agent.toml").write_text(HOSTILE)
    out = cli("config", "--json")
    assert out.code == 0, out.stderr
    assert not [c for c in RAW if c in out.stdout + out.stderr], out.stdout
    assert "\\u009b31m\\u202eflip" in out.stdout
    data = json.loads(out.stdout)
    assert data["settings"]["deny_paths"]["value"] == ["\x1b]0;TITLE\x07"]
    assert [w.split(": ", 1)[1] for w in data["warnings"]] == [
        "unknown setting \x1b]52;c;SGVsbG8=\x07modle; ignored", "unknown setting \x9b31m\u202eflip; ignored"]
