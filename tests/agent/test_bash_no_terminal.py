"""The bash tool's commands have no terminal: what would need one fails at once, saying what to do,
and what is written for one reaches the model as a terminal would have left it.

- A command that opens an editor (`git commit --amend`, `git rebase -i`, a program running
  $EDITOR) waited, the user's editor on no terminal, until the timeout (exit 137), and vim's screen
  escapes were its output; it now fails at once with a line saying how to give the text instead.
- Colours and other escape sequences are removed, and a line a carriage return rewrote (a progress
  bar) keeps its last version: 20,000 redraws were 30,000 characters of output for one line. Only
  evident redraws: a file with CR line ends lost every line but its last. A line first says what
  was removed or rewritten.
- git's editor is named in config `git -c core.editor=true` overrides, not in GIT_EDITOR, which
  came before it: the usual way to go on without an editor failed.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.screen import MAX_LINE, Screen
from compact_agent.agent.tools.shell import NO_EDITOR

from .test_tools import call, make_env

GIT = "git -c user.name=t -c user.email=t@example.com"


@pytest.fixture
def repo(work: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The user's editor, as the agent's own environment has it: one that waits for its keys.
    for name in ("EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR"):
        monkeypatch.setenv(name, "sh -c 'sleep 30' editor")
    subprocess.run(f"git init -q && echo 1 > a && git add a && {GIT} commit -q -m one && echo 2 > a && "
                   f"{GIT} commit -q -am two", shell=True, cwd=work, check=True)
    return work


async def test_a_command_that_opens_an_editor_fails_at_once_saying_how_to_give_the_text(repo: Path) -> None:
    env = make_env(repo)
    for command in (f"{GIT} commit --amend", f"{GIT} rebase -i HEAD~1",
                    "sh -c \"$VISUAL notes.txt\"",  # a program that runs the editor through a shell
                    "python3 -c 'import os, shlex, subprocess, sys; "  # one that splits it into words
                    "sys.exit(subprocess.call(shlex.split(os.environ[\"EDITOR\"]) + [\"notes.txt\"]))'"):
        out = await call(env, "bash", command=command, timeout=10)
        assert NO_EDITOR in out, (command, out)
        assert out.endswith("exit code: 1") or out.endswith("exit code: 128"), (command, out)
        assert "\x1b" not in out and "timed out" not in out
    log = subprocess.run(["git", "log", "--format=%s"], cwd=repo, capture_output=True, text=True).stdout
    assert log == "two\none\n"  # nothing was changed


async def test_a_command_may_still_name_its_own_editor(repo: Path) -> None:
    env = make_env(repo)
    out = await call(env, "bash", command=f"GIT_EDITOR=true {GIT} commit -q --amend && git log -1 --format=%s")
    assert out == "two\nexit code: 0"
    out = await call(env, "bash", command=f"GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/reword/' GIT_EDITOR='sed -i 1s/two/2/' "
                                          f"{GIT} rebase -q -i HEAD~1 >/dev/null && git log --format=%s")
    assert out == "2\none\nexit code: 0"
    assert await call(env, "bash", command="echo \"$PATH\" | grep -c /") == "1\nexit code: 0"  # the rest is the user's


async def test_a_progress_bar_and_colours_reach_the_model_as_a_terminal_shows_them(work: Path) -> None:
    env = make_env(work, bash_output_max_chars=1_000)  # the redraws, 200,000 bytes, were cut at it
    command = ("for i in $(seq 1 20000); do printf '\\rprogress %d%%' $i; done; echo; "
               "printf '\\033[32mPASSED\\033[0m test_x\\n'")
    assert await call(env, "bash", command=command) == (
        "[output as a terminal leaves it: 19,999 redraws of a line (carriage return) shown as the last version; "
        "2 escape sequences removed; `| cat -v` shows every byte]\nprogress 20000%\nPASSED test_x\nexit code: 0")
    # a title and a link (OSC), a cursor move, a line erased and written again, CR LF kept as it is
    command = ("printf '\\033]0;title\\007a \\033]8;;http://x\\033\\\\link\\033]8;;\\033\\\\ b\\033[2K\\r"
               "c\\033[1A\\r\\n50%%\\r100%%\\r\\r\\nend'")
    assert (await call(env, "bash", command=command)).split("]\n", 1)[1] == "a link b\nc\r\n100%\r\nend\nexit code: 0"


async def test_the_tool_line_shows_the_last_line_without_its_escapes(env: ToolEnv) -> None:
    from pydantic_ai.messages import FunctionToolResultEvent, ToolReturnPart

    from compact_agent.agent.run.stream_events import tool_event

    out = await call(env, "bash", command="printf 'collecting\\r\\033[1m3 passed\\033[0m in 0.1s\\n'")
    event = tool_event(FunctionToolResultEvent(ToolReturnPart("bash", out, tool_call_id="c1")))
    assert event is not None and event["summary"] == "exit code: 0 · 3 passed in 0.1s"


def _fed(data: bytes, cuts: list[int]) -> bytes:
    screen, out, at = Screen(), b"", 0
    for cut in [*cuts, len(data)]:
        out += screen.feed(data[at:cut])
        at = cut
    return out + screen.end()


def test_what_is_kept_does_not_depend_on_where_the_reads_split_the_output() -> None:
    data = ("héllo \x1b[31;1mred\x1b[0m\r\nbar 1/3\rbar 2/3\rbar 3/3\n\x1b]0;t\x07x\x1b]8;;u\x1b\\y\n"
            "a\r\rb\r\r\n\x1b(Bdone\r").encode()
    whole = _fed(data, [])
    assert whole == "héllo red\r\nbar 3/3\nxy\na\n\nb\r\ndone".encode()
    rng = random.Random(7)
    for _ in range(300):
        assert _fed(data, sorted(rng.sample(range(1, len(data)), rng.randint(1, 12)))) == whole
    assert _fed(data, list(range(1, len(data)))) == whole  # a byte at a time


def test_a_long_line_is_kept_whole_and_text_after_an_unfinished_escape_is_not_lost() -> None:
    line = b"x" * (3 * MAX_LINE + 5)
    assert _fed(line + b"\n", list(range(1000, len(line), 1000))) == line + b"\n"
    assert _fed(b"a\x1b]0;" + b"y" * 10_000 + b"\nb\n", []) == b"a0;" + b"y" * 10_000 + b"\nb\n"  # an OSC never ended
    assert _fed(b"ok\x1b[3", []) == b"ok[3"  # an escape the output ended inside
    assert _fed(b"a\x1b]b\nline two\x07\n", []) == b"ab\nline two\x07\n"  # a stray one takes no line with it


def test_utf16_and_binary_output_is_given_as_it_came() -> None:
    # in UTF-16 a CR is followed by a NUL, and a byte 0x0D or 0x1B may be half a character (U+4E0D 不)
    wide = "\ufeffa\x1b[1mb\r\nprogress 1%\rprogress 2%\r不\n".encode("utf-16-le")
    assert _fed(wide, []) == wide and _fed(wide, list(range(1, len(wide)))) == wide
    assert _fed(wide[2:], [7]) == wide[2:]  # without its mark: the NUL of its first character tells
    binary = b"\x1b[1mon screen\rover\n\x00\x1b[1m\r\x1b\r\n"
    assert _fed(binary, []) == binary
    # what came before the read with the first NUL is shown as a terminal shows it
    assert _fed(binary, [binary.index(b"\0")]) == b"on screen\nover\n\x00\x1b[1m\r\x1b\r\n"


async def test_a_file_with_lone_carriage_returns_keeps_every_line(work: Path) -> None:
    # A CR-only file (classic Mac text, a CSV export) was cut to the text after its last CR.
    (work / "prices.csv").write_bytes(b"sku,price\rA1,10\rB2,20\rC3,30")
    (work / "log.txt").write_bytes(b"step 1 done\rstep 2 failed: disk full\n")
    (work / "mac.txt").write_bytes(b"Dear Sir,\r\rthe order shipped.\r")
    env = make_env(work)
    note = "[output as a terminal leaves it: {} lone carriage returns shown as line breaks; `| cat -v` shows every byte]"
    assert await call(env, "bash", command="cat prices.csv") == f"{note.format(3)}\nsku,price\nA1,10\nB2,20\nC3,30\nexit code: 0"
    assert await call(env, "bash", command="cat log.txt mac.txt") == (
        f"{note.format(3)}\nstep 1 done\nstep 2 failed: disk full\nDear Sir,\n\nthe order shipped.\nexit code: 0")


def test_only_a_line_redrawn_keeps_its_last_version_wherever_the_reads_split() -> None:
    bar = "\r".join(f"{p:3d}%|{'█' * (p // 10):10s}| {p // 10}/10 [00:0{p // 50}<{'?' if not p else '00:01'}, "
                    f"{p / 7:.2f}it/s]" for p in range(0, 101, 10)).encode()
    data = b"\nTraining: 1/3\rTraining: 2/3\rTraining: 3/3\r\n\r\n" + bar + b"\ndone\rsku,price\rA1,10\rA1,10\r"
    whole = _fed(data, [])
    assert whole == b"\nTraining: 3/3\r\n\r\n" + bar.rsplit(b"\r", 1)[1] + b"\ndone\nsku,price\nA1,10\nA1,10"
    rng = random.Random(3)
    for _ in range(200):
        screen, out, at = Screen(), b"", 0
        for cut in [*sorted(rng.sample(range(1, len(data)), rng.randint(1, 20))), len(data)]:
            out += screen.feed(data[at:cut])
            at = cut
        assert out + screen.end() == whole
        assert (screen.redraws, screen.breaks) == (2 + 10, 3)  # same words, a bar, a rate: one line redrawn


async def test_escape_bytes_in_a_file_are_said_removed(work: Path) -> None:
    (work / "fixture.txt").write_bytes(b"expected = '\x1b[31mFAIL\x1b[0m'\x1b\n")
    out = await call(make_env(work), "bash", command="cat fixture.txt")
    assert out == ("[output as a terminal leaves it: 3 escape sequences removed; `| cat -v` shows every byte]\n"
                   "expected = 'FAIL'\nexit code: 0")
    assert await call(make_env(work), "bash", command="echo plain") == "plain\nexit code: 0"  # nothing to say


async def test_git_config_on_the_command_line_names_the_editor(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIT_EDITOR came before `git -c core.editor=true`, so the usual way to go on without an editor failed
    subprocess.run(f"git checkout -q -b topic && echo t > a && {GIT} commit -qam topic && git checkout -q - && "
                   f"echo m > a && {GIT} commit -qam main && git checkout -q topic && ({GIT} rebase - >/dev/null 2>&1; "
                   "echo resolved > a && git add a)", shell=True, cwd=repo, check=True)
    env = make_env(repo)
    out = await call(env, "bash", command=f"{GIT} rebase --continue")
    assert NO_EDITOR in out and out.endswith("exit code: 1")
    out = await call(env, "bash", command=f"{GIT} -c core.editor=true rebase --continue >/dev/null 2>&1; "
                                          "git log --format=%s")
    assert out == "topic\nmain\ntwo\none\nexit code: 0"
    # the editor is one program, found without a shell; the user's own git configuration is kept
    out = await call(env, "bash", command="python3 -c 'import os, subprocess, sys; "
                                          "sys.exit(subprocess.call([os.environ[\"EDITOR\"], \"notes.txt\"]))'")
    assert out == f"{NO_EDITOR}\nexit code: 1"
    for name, value in {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "Kept"}.items():
        monkeypatch.setenv(name, value)
    out = await call(env, "bash", command="git config user.name; git config core.editor; git config sequence.editor")
    kept, editor, sequence, _ = out.splitlines()
    assert kept == "Kept" and editor == sequence and editor.endswith("/no-editor") and " " not in editor
