"""A command the bash tool runs has no terminal and empty input: an interactive program is not left
waiting out the timeout, and the result says how to run it non-interactively.

- `cat`, `read`, `python` (no script), `git add -p`, `npm init` read end of file and end at once;
  `top`, `sudo` and `ssh` find no terminal and fail at once. Only a program that takes its error
  output for the terminal (vim, for `foo | xargs vim`) waited: that is the output pipe, whose end it
  holds can never be read, so it waited for keys until the timeout (120 s by default) and the model
  read exit 137 under a screen of `~`. It is now stopped within a second or two, saying so in one line.
- A command whose output ends in a prompt that got no answer (`Stage this hunk [y,n,q,a,d,e,?]? `,
  `>>> `) exited 0 with nothing done, and nothing said why; the same line now says it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compact_agent.agent.tools.base import Killed
from compact_agent.agent.tools.shell import ASKED, bash_impl

from .test_tools import call, make_env

#: What every such result says (ASKED without the part naming what happened).
HOW = ASKED.split("{what}")[1]
#: A program that does what vim does on no terminal: its input at end of file, it reads its error
#: output instead, and waits for a key there.
KEYS_FROM_STDERR = f"{sys.executable} -c 'import os, select; os.dup2(2, 0); select.select([0], [], [])'"
GIT = "git -c user.name=t -c user.email=t@example.com"


async def test_a_program_waiting_for_keys_on_its_error_output_is_stopped_at_once(work: Path) -> None:
    env = make_env(work)
    for command in (KEYS_FROM_STDERR, f"echo before; {KEYS_FROM_STDERR}; echo never",
                    f"{KEYS_FROM_STDERR} 2>&1 | cat"):  # the pipe it reads is another command's
        start = time.monotonic()
        out = await bash_impl(env, command, timeout=10)
        assert time.monotonic() - start < 6, (command, out)  # not the 10 s timeout
        assert isinstance(out, Killed)
        assert " was waiting for keys from a terminal and was stopped" + HOW in out, (command, out)
        assert "timed out" not in out and "never" not in out


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
async def test_vim_is_stopped_at_once_and_leaves_no_swap_file(work: Path) -> None:
    (work / "notes.txt").write_text("one\n")
    start = time.monotonic()
    out = await call(make_env(work), "bash", command="vim notes.txt", timeout=10)
    assert time.monotonic() - start < 8, out
    assert out.endswith("[vim was waiting for keys from a terminal and was stopped" + HOW + "\nexit code: 143 (killed by SIGTERM)"), out
    assert sorted(p.name for p in work.iterdir()) == ["notes.txt"]  # stopped by SIGTERM: vim removed its .swp
    assert (work / "notes.txt").read_text() == "one\n"


async def test_a_process_that_waits_for_something_else_is_left_to_finish(work: Path) -> None:
    env = make_env(work)
    # Its input the output pipe, but it sleeps, reading nothing.
    out = await bash_impl(env, "sleep 1.2 0>&1; echo slept", timeout=10)
    assert out == "slept\nexit code: 0"
    # Waiting in select, its input a file open for writing (`<&-`, then a log opened): not a pipe.
    out = await bash_impl(env, f"{sys.executable} -c 'import os, select; r, w = os.pipe(); "
                               "select.select([r], [], [], 1.2); print(\"done\")' 0>log", timeout=10)
    assert out == "done\nexit code: 0"


async def test_a_prompt_that_got_no_answer_is_said_with_how_to_run_it(work: Path) -> None:
    subprocess.run(f"git init -q && echo 1 > a && git add a && {GIT} commit -q -m one && echo 2 >> a",
                   shell=True, cwd=work, check=True)
    env = make_env(work)
    said = "[its output ends in a prompt, which got no answer" + HOW
    out = await call(env, "bash", command="git add -p")
    assert out.endswith("Stage this hunk [y,n,q,a,d,e,?]? \n" + said + "\nexit code: 0"), out
    staged = subprocess.run(["git", "diff", "--cached"], cwd=work, capture_output=True, text=True).stdout
    assert staged == ""  # it read no answer: nothing was staged
    out = await call(env, "bash", command=f"{sys.executable} -i")
    assert out.endswith(">>> \n" + said + "\nexit code: 0"), out
    out = await call(env, "bash", command="printf 'Overwrite? [y/N] '; read answer; [ \"$answer\" = y ]")
    assert out == "Overwrite? [y/N] \n" + said + "\nexit code: 1"
    for plain in ("echo done", "printf 'a: b\\n\\n'", "printf 'x\\ny? '; printf '\\nlast line\\n'"):
        out = await call(env, "bash", command=plain)
        assert "[its output" not in out, (plain, out)


async def test_a_command_timed_out_at_a_prompt_says_it_looked_like_it_waited_for_an_answer(work: Path) -> None:
    # Its input is a pipe the command made, which nothing writes to before the timeout.
    command = f"sleep 30 | {sys.executable} -c \"input('Name? ')\""
    out = await bash_impl(make_env(work), command, timeout=1)
    assert isinstance(out, Killed)
    assert out == ("Name? \n[it looked like it was waiting for an answer to the prompt its output ends in" + HOW
                   + "\nexit code: 137 (timed out after 1s: killed by SIGKILL, with its child processes)")
