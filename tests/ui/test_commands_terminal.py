"""Slash commands and prompts as the terminal shows them: literal brackets, no exception class
names, every compaction in /history, one window figure, and the commands users reach for."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.models import ConfigError
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from compact_agent.ui.repl import _ask
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: short summary.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 1500)


def session(tmp_path: Path, server: FakeOpenAIServer, **kw) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       home=tmp_path / "home", **kw))


async def show(s: AgentSession, line: str) -> str:
    c = render.make_console()
    c.file = io.StringIO()
    c.record = True
    await dispatch(s, line, c)
    return c.export_text()


def test_permission_prompt_and_help_print_their_brackets():
    c = Console(record=True, width=200, file=io.StringIO(), markup=False)
    ask = _ask(c, None, io.StringIO("a\n"))
    assert ask("bash", "echo [x] && ls [abc]") == "always"
    out = c.export_text()
    assert ("allow? [y]es once / [a]lways this exact command this session / [n]o, or what to do instead / Enter "
            "alone: just no (waiting for approval):") in out
    assert "echo [x] && ls [abc]" in out


async def test_help_status_context_and_usage_errors(tmp_path):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            assert "/compact [instructions] [--preview] [--from N | --up-to N]" in " ".join((await show(s, "/help")).split())
            status = await show(s, "/status")
            from compact_agent.agent.accounting.context_report import picture

            used = picture(s).used
            assert used > 500 and f"context     {used:,} / threshold" in status  # the same figure as /context
            assert "usage: /compact" in await show(s, "/compact --from abc")
        finally:
            s.close()


async def test_errors_carry_no_exception_class_names(tmp_path):
    run = await drive(tmp_path, answer, ["/compact\r", "hello\r", "/rewind 7\r", "/rewind abc\r"])
    assert "usage: /rewind N" in run.out
    assert "nothing to compact" in run.out and "CompactionError" not in run.out
    assert "no checkpoint 7; there is 1, number 0 (/rewind lists them)" in run.out and "IndexError" not in run.out


async def test_history_lists_every_compaction_and_rewinds_as_such(tmp_path):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            for i in range(3):  # the newest round is kept verbatim: two turns before each compaction
                await s.run_turn(f"turn {i}a")
                await s.run_turn(f"turn {i}b")
                await s.compact()
            await s.run_turn("last turn")
            s.rewind(6)  # "last turn": the six before it keep their checkpoints through the compactions
            out = await show(s, "/history")
        finally:
            s.close()
    rows = [line for line in out.splitlines() if "compaction (manual, " in line]
    assert len(rows) == 3, out
    assert all(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d  compaction", row) for row in rows)  # not an ISO stamp
    lines = out.splitlines()
    rewind = next(i for i, line in enumerate(lines) if line.endswith("  rewind"))
    assert lines[rewind + 1].strip() == "the conversation before it:" and "rewind/rewind" not in out
    assert lines[rewind + 2].startswith("  /") and lines[rewind + 2].strip().endswith(".jsonl")
    listed = out[out.index("messages ("):].splitlines()[1:]
    # the newest round's prompt, kept verbatim in the compaction's message, has its own row under it
    assert [line.split()[1] if line.split()[0].isdigit() else line.split()[0] for line in listed] == [
        "summary", "you", "assistant"]
    assert listed[1].split(maxsplit=1)[1] == "turn 2b", out


def reads_then_answers(req) -> Reply:
    if req.messages[-1].get("role") != "tool":
        return Reply.tools([("read_file", {"path": "notes.txt"})], content="Let me look.")
    return Reply.text("The notes say " + "alpha " * 60 + "omega.")


async def test_history_lists_messages_in_the_words_of_the_conversation(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("one\ntwo\n")
    run = await drive(tmp_path, reads_then_answers, ["what do the notes say?\r", "/history\r"])
    listed = run.out[run.out.index("messages ("):].splitlines()[1:5]
    assert [line.split(maxsplit=2)[1:] for line in listed[:3]] == [
        ["you", "what do the notes say?"], ["assistant", "Let me look. · read_file(notes.txt)"],
        ["tool", "result  read_file: 2 lines"]]
    assert listed[3].split()[1] == "assistant" and listed[3].rstrip().endswith("alpha…")  # cut at a word


async def test_clear_keeps_the_current_models_window(tmp_path):
    with FakeOpenAIServer(answer, serves=["other-model", "deepseek-chat"]) as server:
        s = session(tmp_path, server)
        try:
            await show(s, "/model other-model --window 8000")
            assert s.cm.limits.window == 8000
            await show(s, "/model deepseek-chat")  # goes to the fake server too (--base-url)
            assert s.cm.limits.window == 128_000
            out = await show(s, "/clear")
            assert "new session" in out and s.cm.limits.window == 128_000
            # too small for the system prompt and tools: the message names where a window is given here
            with pytest.raises(ConfigError, match=r"the minimum is [\d,]+ \(/model NAME --window N\)$"):
                await show(s, "/model deepseek-chat --window 2048")
            assert s.cm.limits.window == 128_000 and s.info.name == "deepseek-chat"
        finally:
            s.close()


async def test_permissions_config_mcp_and_diff(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=cwd, check=True)
    (cwd / "tracked.py").write_text("a = 1\n")
    subprocess.run(["git", "add", "."], cwd=cwd, check=True)
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"], cwd=cwd, check=True)
    (cwd / "tracked.py").write_text("a = 2\n")
    (cwd / "new.py").write_text("b = 1\n")
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server, allowed_tools=("write_file",))
        try:
            perms = await show(s, "/permissions")
            assert "always allowed   write_file" in perms and "mode             ask before" in perms
            config = await show(s, "/config")
            assert "autocompact_buffer" in config and "default" in config
            assert "no MCP servers configured" in await show(s, "/mcp")
            diff = await show(s, "/diff")
            assert "-a = 1" in diff and "+a = 2" in diff and "new files: new.py" in diff
        finally:
            s.close()
    plain = tmp_path / "plain"
    plain.mkdir()
    with FakeOpenAIServer(answer) as server:
        s2 = AgentSession(SessionOptions(cwd=plain, model="fake-model", base_url=server.base_url, api_key="k",
                                         home=tmp_path / "home"))
        try:
            assert "not a git repository" in await show(s2, "/diff")
        finally:
            s2.close()


async def test_resume_lists_and_switches_sessions(tmp_path):
    first = await drive(tmp_path, answer, ["the older session\r"])
    await drive(tmp_path, answer, ["the newer session\r"])
    picked = await drive(tmp_path, answer, ["2\r", "/exit\r"], pick_session=True)  # --resume without an id
    assert "the older session" in picked.out and "the newer session" in picked.out
    assert f"--resume {first.out.split('--resume ')[1].split()[0]}" in picked.out.splitlines()[-1]
    listed = await drive(tmp_path, answer, ["/resume\r", "/resume 1\r"])
    assert "use /resume N or /resume ID" in listed.out and "resumed session" in listed.out


def writes_agents_md(req) -> Reply:
    if not any(m.get("role") == "tool" for m in req.messages):
        return Reply.tools([("write_file", {"path": "AGENTS.md", "content": "# Project\nRun tests: `make test`\n"})])
    return Reply.text("wrote it")


async def test_init_writes_agents_md_after_asking(tmp_path):
    run = await drive(tmp_path, writes_agents_md, ["/init\r"], answers="y\n")
    assert "write_file wants to create AGENTS.md (2 lines):" in run.out and "wants to run" not in run.out
    assert "wrote" in run.out
    assert "Look at this repository and write an AGENTS.md" in run.prompts[0]
    assert (tmp_path / "project" / "AGENTS.md").read_text().startswith("# Project")
    again = await drive(tmp_path, writes_agents_md, ["/history\r"], continue_last=True)
    assert "Look at this repository" not in again.out  # our prompt behind /init is not shown as the user's
    assert "› /init\n⏺ wrote it" in again.out  # the last exchanges of the resumed session, as shown live
    assert any(line.split()[1:] == ["you", "/init"] for line in again.out.splitlines() if line.startswith("    "))


def test_a_compacted_session_is_listed_by_the_users_first_words_not_by_the_compaction(tmp_path):
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from compact_agent.context.compaction import summary
    from compact_agent.session.store import SessionStore
    from compact_agent.ui.sessions_list import first_prompt

    store = SessionStore(tmp_path, "s1")
    store.append([ModelRequest(parts=[UserPromptPart("fix the parser, then the lexer")])])
    store.rewrite({"trigger": "auto"}, [summary.summary_message("Fixed it.", None, ["fix the parser, then the lexer"],
                                                                "full", {}, [])])
    prompt, _ = first_prompt(store.path)
    assert prompt == "fix the parser, then the lexer"


async def test_status_and_cost_count_the_whole_session_after_continue(tmp_path):
    first = await drive(tmp_path, answer, ["one\r", "two\r", "/compact\r", "/cost\r", "three\r"])
    assert "full transcript archived" in first.out
    assert "compaction has kept nothing out of the requests yet" in first.out  # no request since it
    assert "nothing compacted yet" not in first.out
    requests_before = len(first.server.requests)
    again = await drive(tmp_path, answer, ["/status\r", "/cost\r"], continue_last=True)
    assert "compactions 1 in the whole session (0 since this run began)" in again.out
    assert "whole session" in again.out
    total_row = next(line for line in again.out.splitlines() if "│ total" in line)
    assert int(total_row.split("│")[1].strip()) == requests_before  # the main requests and the summary
    text = " ".join(again.out.split())  # fake-model has no known prices: no $0.0000 anywhere
    assert "$0.0000" not in text and "1 compaction and trimming what was sent kept ~" in text and "out of the requests (money unknown)" in text
    assert "this run (since the session was resumed): 0 requests, nothing spent" in text


def plans(req) -> Reply:
    last = req.messages[-1]
    if last.get("role") == "user" and "plan" in str(last.get("content")):
        return Reply.tools([("todo_write", {"todos": [{"content": "step one", "status": "pending"}]})])
    return Reply.text("noted")


async def test_rewind_asks_drops_the_undone_plan_and_puts_the_prompt_back(tmp_path):
    from compact_agent.ui.command_registry import current_repl

    plan_sizes: list[int] = []

    def plan_size() -> None:  # at the first prompt the session may still be starting: no plan yet
        s = current_repl().session
        plan_sizes.append(len(s.ext.plan.items) if s is not None else 0)

    run = await drive(tmp_path, plans, ["first\r", "make a plan\r", "/rewind\r", "/rewind 1\r", "/rewind 1\r", "\r"],
                      answers="n\ny\n", at_prompt=plan_size)
    assert "nothing rewound" in run.out and "the prompt is back in the input" in run.out
    assert "    0  › first\n    1  › make a plan\n/rewind N goes back to before turn N" in run.out
    assert "rewind to before “make a plan”? 4 messages and the files" in run.out and "(s)" not in run.out
    assert "rewound; no files to restore;" in run.out
    assert plan_sizes == [0, 0, 1, 1, 1, 0, 1]  # the plan of the undone turn went with it, and came back with the turn
    from tests.fakes.openai_server import message_text

    last = run.server.requests[-1]  # Enter sent the prompt put back, into the rewound conversation
    assert [message_text(m) for m in last.messages if m.get("role") == "user"] == ["first", "make a plan"]
    assert sum(1 for r in run.server.requests if r.last_user_text() == "make a plan") == 4  # 2 turns x 2 requests


def spoofs_a_command(req) -> Reply:
    if not any(m.get("role") == "tool" for m in req.messages):
        return Reply.tools([("bash", {"command": "echo PWNED > pwned.txt # \r\x1b[2K\x1b[1A\x1b[2Kls -la"})])
    return Reply.text("listed \x1b]0;HACKED\x07 \u202etxt.exe")


async def test_the_approval_question_shows_the_command_that_runs(tmp_path):
    """A command that ends in a carriage return and cursor moves would, printed raw, repaint the
    question as `ls -la`; the REPL's console shows every control character escaped, so the user
    sees and approves what will run. Our own colours still reach the terminal."""
    assert isinstance(render.make_console(), render.SafeConsole)  # what the REPL prints with
    console = render.SafeConsole(record=True, width=200, file=io.StringIO(), force_terminal=True, highlight=False)
    run = await drive(tmp_path, spoofs_a_command, ["run it\r"], answers="y\n", console=console)
    out = console.file.getvalue()
    assert "echo PWNED > pwned.txt # \\r\\x1b[2K\\x1b[1A\\x1b[2Kls -la" in out
    # Raw, none of the model's sequences is left (the spinner's own cursor moves are rich's, and stay).
    assert "# \r" not in out and "\x1b[2Kls" not in out and "\x1b]0;" not in out and "\u202e" not in out
    assert "listed \\x1b]0;HACKED\\x07 \\u202etxt.exe" in out  # the bell too (rich would drop it unseen)
    assert "\x1b[1m" in out  # the bold of the tool's name: rich's styling is not escaped
    assert (tmp_path / "project" / "pwned.txt").exists() and run.prompts == ["run it"]


async def test_a_paste_larger_than_a_request_is_read_from_a_file(tmp_path):
    """A log pasted into the REPL, too large for a 32K window, goes to a file the model can read;
    the user is told, and the request holds its first and last lines."""
    paste = " ".join(f"entry-{i}" for i in range(30_000))  # one line
    seen: list[str] = []

    def answer_it(req) -> Reply:
        seen.append("\n".join(str(m.get("content")) for m in req.messages if m.get("role") == "user"))
        return Reply.text("read it")

    run = await drive(tmp_path, answer_it, [], first_message=paste, context_window=32_000)  # as `compact-agent "…"`
    assert "is more than the 32,000-token window holds" in run.out and "read it" in run.out
    assert "entry-0 " in seen[0] and "entry-29999" in seen[0] and "entry-15000 " not in seen[0]
    saved = Path(re.search(r"Full input saved to (\S+) ", seen[0]).group(1))
    assert saved.read_text() == paste


async def test_a_key_in_a_tool_call_is_not_shown_on_its_tool_line(tmp_path, monkeypatch):
    """The REPL's `● bash(…)` line showed a key the model wrote into a command; the call's result
    was redacted already. (The approval question shows the command exactly: it is what runs.)"""
    from compact_agent.context.plumbing import secrets

    key = "sk-tool-line-0123456789abcdef"
    for name, empty in (("registered_keys", set()), ("key_forms", set()), ("_spread", [])):
        monkeypatch.setattr(secrets, name, empty)  # registered for this test only
    secrets.register(key)

    def echoes_key(req) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("bash", {"command": f"echo {key} > k.txt"})])
        return Reply.text("done")

    run = await drive(tmp_path, echoes_key, ["store it\r"], answers="y\n")
    call_lines = [ln for ln in run.out.splitlines() if ln.startswith("● bash(")]
    assert call_lines == ["● bash(echo [REDACTED] > k.txt)"], call_lines
    assert (tmp_path / "project" / "k.txt").read_text().strip() == key  # the command ran as written


async def test_an_answer_shows_angle_brackets_as_written(tmp_path):
    """rich's Markdown drops what reads as HTML: `List<String>` was shown as `List`."""
    run = await drive(tmp_path, lambda req: Reply.text("Use `Map<K, V>` or List<String>, never <script>x</script>."),
                      ["which type?\r"])
    assert "Use Map<K, V> or List<String>, never <script>x</script>." in run.out


async def test_a_commands_output_too_large_for_a_request_goes_whole_to_a_file(tmp_path):
    """`!seq 1 200000` prints 1.3 MB: more than the bash tool's cap, more than a request holds. The
    terminal shows its two ends; the whole of it goes with the next message, by way of a file the
    model can read, and the typed question goes whole."""
    seen: list[str] = []

    def answer_it(req) -> Reply:
        seen.append("\n".join(str(m.get("content")) for m in req.messages if m.get("role") == "user"))
        return Reply.text("read it")

    run = await drive(tmp_path, answer_it, ["!seq 1 200000\r", "which number is missing?\r"], context_window=32_000)
    assert "characters not shown here" in run.out and "go with your next message" in run.out
    assert "200000" in run.out and "\n100000\n" not in run.out  # the ends only, not 1.3 MB of numbers
    assert seen[0].startswith("which number is missing?\n\nI ran this shell command myself:\n$ seq 1 200000\n1\n2\n")
    saved = Path(re.search(r"Full input saved to (\S+) ", seen[0]).group(1))
    numbers = saved.read_text().split("$ seq 1 200000\n", 1)[1].split("\n")
    assert numbers[:200_000] == [str(i) for i in range(1, 200_001)]  # none cut from the middle
    assert numbers[200_000:] == ["exit code: 0"]


def test_output_past_the_cap_is_said_to_be_cut_not_all_sent() -> None:
    """Past 2,000,000 characters the output is cut from the middle: the user is told how much,
    not that all of it goes with the next message."""
    from compact_agent.agent.tools.shell import CUT_NOTE, cut_from
    from compact_agent.ui.shell_escape import show_shell_output

    out = "a" * 1_000_000 + CUT_NOTE.format(n=688_895) + "b" * 1_000_000
    assert cut_from(out) == 688_895 and cut_from("a" * 50_000) == 0
    console = Console(record=True, width=300, file=io.StringIO())
    sent = show_shell_output(console, "seq 1 400000", out)
    shown = console.export_text()
    assert sent.endswith(out) and len(shown) < 25_000
    assert ("(the command printed more than 2,000,000 characters: 688,895 were cut from the middle; the other "
            f"{len(out):,} go with your next message; what a request cannot hold goes as a file the model reads)") in shown
    console = Console(record=True, width=300, file=io.StringIO())
    show_shell_output(console, "seq 1 200000", "c" * 30_000)
    assert "(its 30,000 characters go with your next message;" in console.export_text()


def only_this_key(monkeypatch, key: str) -> None:
    from compact_agent.context.plumbing import secrets

    for name, empty in (("registered_keys", set()), ("key_forms", set()), ("_spread", [])):
        monkeypatch.setattr(secrets, name, empty)  # registered for this test only
    secrets.register(key)


async def test_a_key_typed_into_a_prompt_is_kept_redacted_in_the_prompt_history(tmp_path, monkeypatch):
    """The session file redacted it, the up-arrow history file kept it verbatim."""
    from compact_agent.agent.run.options import session_root
    from compact_agent.ui.prompt_input import history_path

    key = "sk-typed-into-a-prompt-0123456789"
    only_this_key(monkeypatch, key)
    run = await drive(tmp_path, lambda req: Reply.text("noted"), [f"my key is {key} ok\r", "\x1b[A\r", "/history\r"])
    saved = history_path(session_root(tmp_path / "project", tmp_path / "home")).read_text()
    assert key not in saved and "+my key is [REDACTED] ok" in saved
    assert run.prompts[-1] == "my key is [REDACTED] ok"  # what up-arrow brings back
    assert key not in run.out and "you          my key is [REDACTED] ok" in run.out  # /history


async def test_a_key_in_the_message_given_on_the_command_line_is_echoed_redacted(tmp_path, monkeypatch):
    """`compact-agent "my key is …"`: the REPL echoed the first message as given, key and all."""
    key = "sk-first-message-0123456789abcdef"
    only_this_key(monkeypatch, key)
    run = await drive(tmp_path, lambda req: Reply.text("noted"), [], first_message=f"my key is {key} ok")
    assert key not in run.out and "› my key is [REDACTED] ok" in run.out


async def test_rewind_shows_a_prompt_with_the_key_redacted(tmp_path, monkeypatch):
    """A checkpoint whose prompt holds the key (an index an earlier version wrote): /rewind's list,
    its question and the prompt it gives back to the input show it as [REDACTED]."""
    key = "sk-in-a-rewind-question-0123456789"
    only_this_key(monkeypatch, key)
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        await s.run_turn(f"my key is {key} ok")
        s.close()
        index = s.checkpoints.store_dir / "checkpoints.json"
        data = json.loads(index.read_text())
        data["checkpoints"][0]["prompt"] = f"my key is {key} ok"
        index.write_text(json.dumps(data))
        run = await drive(tmp_path, answer, ["/rewind\r", "/rewind 0\r", "/rewind 0\r", "\r"], server=server,
                          answers="n\ny\n", continue_last=True)
    assert key not in run.out, run.out
    assert "0  › my key is [REDACTED] ok" in run.out
    assert run.out.count("rewind to before “my key is [REDACTED] ok”?") == 2
    assert "nothing rewound" in run.out and "the prompt is back in the input" in run.out
    assert run.prompts[-1] == "my key is [REDACTED] ok"  # given back to the input, then sent as it was
