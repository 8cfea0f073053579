"""Start-up: the command line reads its settings and the REPL shows its prompt without importing
pydantic-ai; the session is built while the user types. (How fast: benchmarks/startup.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import REPO, Terminal

HEAVY = ("pydantic_ai", "openai", "anthropic")


def loaded_after(code: str, cwd: Path) -> list[str]:
    """Which of HEAVY a fresh interpreter has imported after running `code`."""
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=cwd,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO / "src"),
                              "COMPACT_AGENT_CONFIG": str(cwd / "none.toml"), "COMPACT_AGENT_HOME": str(cwd / "h")})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_the_settings_the_cli_and_the_repl_module_load_without_pydantic_ai(tmp_path):
    code = ("from pathlib import Path\nimport compact_agent.cli, compact_agent.ui.repl\n"
            "from compact_agent.settings_file import load\nload(Path.cwd(), {})\n"
            "from compact_agent.ui.repl_start import Start\nfrom compact_agent.agent.run.options import SessionOptions\n"
            "Start.of(SessionOptions(cwd=Path.cwd(), model='m', base_url='http://127.0.0.1:9/v1'))\n"
            "from compact_agent.session.answered import continued_id\ncontinued_id(Path.cwd())\n"  # what -c opens
            f"{PASSED_OVER}from compact_agent.cli_resume import resumed_file\nresumed_file(Path.cwd(), True, None)")
    assert loaded_after(code, tmp_path) == []


#: Sessions where `-c` passes a failed start over and says so, with each one's first prompt.
PASSED_OVER = """import os
from compact_agent.agent.run.options import session_root
root = session_root(Path.cwd())
root.mkdir(parents=True, exist_ok=True)
for n, lines in enumerate([
        ['{"v": 1, "id": "q", "kind": "message", "message": {"kind": "request", "parts": [{"part_kind": "user-prompt", '
         '"content": "real work"}]}}', '{"v": 1, "id": "r", "kind": "message", "message": {"kind": "response", '
         '"parts": [{"part_kind": "text", "content": "done"}]}}'],
        ['{"v": 1, "id": "p", "kind": "prompt", "prompt": {"text": "oops"}}']]):
    path = root / f"20261201-090{n}-aaaaaa.jsonl"
    path.write_text("\\n".join(lines) + "\\n")
    os.utime(path, (1000 + n, 1000 + n))
"""


def test_the_library_loads_each_name_on_first_use(tmp_path):
    import compact_agent.context as lib

    assert loaded_after("import compact_agent.context", tmp_path) == []
    assert set(lib._EXPORTS) == set(lib.__all__) and set(lib.__all__) <= set(dir(lib))
    assert loaded_after("from compact_agent.context import *\nassert ContextManager and default_layers",
                        tmp_path) == ["pydantic_ai"]


GATE = """
import os, sys, time

class HoldPydanticAI:
    \"\"\"pydantic-ai cannot be imported until the file GATE exists: whatever shows before needs none of it.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name == "pydantic_ai":
            while not os.path.exists(os.environ["GATE"]):
                time.sleep(0.01)
        return None

sys.meta_path.insert(0, HoldPydanticAI())
"""


def test_the_prompt_is_up_while_the_session_is_built_and_a_line_waits_for_it(tmp_path):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(GATE)
    gate = tmp_path / "open"
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        term = Terminal(tmp_path, server.base_url, "--yes", fresh=True,
                        env={"PYTHONPATH": f"{hook}:{REPO / 'src'}", "GATE": str(gate)})
        try:
            banner = term.read_until("/help for commands")
            term.prompt(banner)
            term.read_until("starting…", banner)  # the toolbar says the session is not there yet
            term.type("hello\r")  # entered while pydantic-ai is still held: it waits for the session
            gate.touch()
            term.prompt(term.read_until("ANSWERED", banner))
            term.read_until("context ", banner)  # the toolbar once the session is there
            assert term.finish() == 0
        finally:
            term.close()
        assert server.requests[0].last_user_text() == "hello"


async def _a_saved_session(tmp_path: Path, server: FakeOpenAIServer):
    from .test_commands_terminal import session

    s = session(tmp_path, server)
    await s.run_turn("the first session")
    s.close()
    return s


async def test_continue_of_a_session_in_use_is_refused_before_the_banner(tmp_path):
    """`-c` on a session another process holds: refused before anything is shown (the lock was
    found out only when the session was built, seconds after the prompt was up)."""
    import io

    import pytest
    from rich.console import Console

    from compact_agent.session.files import SessionLocked
    from compact_agent.session.store import SessionStore

    from .repl_driver import drive

    prompts: list[int] = []
    console = Console(record=True, width=200, file=io.StringIO())
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        first = await _a_saved_session(tmp_path, server)
        holder = SessionStore(first.store.root, first.session_id)
        holder.lock()
        try:
            with pytest.raises(SessionLocked, match=f"session {first.session_id} is in use by another"):
                await drive(tmp_path, lambda req: Reply.text("ok"), ["hello\r"], server=server, console=console,
                            at_prompt=lambda: prompts.append(1), continue_last=True)
        finally:
            holder.unlock()
        assert server.requests == [] or all("hello" not in str(r.messages) for r in server.requests)
    assert prompts == [] and console.export_text() == ""  # no banner, no prompt


async def test_the_cli_refuses_continue_of_a_session_in_use_in_one_line_before_a_prompt(tmp_path):
    from compact_agent.session.store import SessionStore

    from .pty_driver import PROMPT_READY

    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        first = await _a_saved_session(tmp_path, server)
        holder = SessionStore(first.store.root, first.session_id)
        holder.lock()  # this test's process holds it: the REPL's is another
        try:
            term = Terminal(tmp_path, server.base_url, "-c")
            try:
                term.read_until("is in use by another compact-agent process")
                code = term.proc.wait(60)
                term.drain()  # what it printed after the line read above, to check there is nothing more
            finally:
                term.close()
        finally:
            holder.unlock()
    lines = [ln for ln in term.text().splitlines() if ln.strip() and "warning: --api-key" not in ln]
    assert code == 1 and PROMPT_READY not in term.seen and "/help for commands" not in term.text()
    assert lines == [f"compact-agent: session {first.session_id} is in use by another compact-agent process, pid "
                     f"{os.getpid()} (wait for it to finish, or leave it: /exit in its REPL; or start a new session "
                     "without --continue/--resume)"], lines  # the holder named: this test's process
