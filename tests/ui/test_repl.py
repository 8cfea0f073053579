"""The REPL as a user types into it: pipe input into the real prompt, the fake provider over HTTP."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def has_tool_result(req) -> bool:
    return any(m.get("role") == "tool" for m in req.messages)


def result_of(out: str, call: str, summary: str) -> bool:
    """`summary` is the result line of `call`: right under the call's own line, or naming the call
    (calls made together print first, and their results come back in the order they finish)."""
    lines = out.splitlines()
    under = any(a == f"● {call}" and b == f"  ⎿ {summary}" for a, b in zip(lines, lines[1:], strict=False))
    return under or f"  ⎿ {call}: {summary}" in lines


def tools_then_answer(req) -> Reply:
    if not has_tool_result(req):
        return Reply.tools([("read_file", {"path": "missing.py"}), ("glob", {"pattern": "*.txt"})])
    return Reply.text("ALL DONE")


async def test_a_turn_shows_tool_lines_the_answer_and_how_to_resume(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.txt").write_text("x\n")
    run = await drive(tmp_path, tools_then_answer, ["look around\r"])
    assert "● read_file(missing.py)" in run.out and "● glob(*.txt)" in run.out
    assert result_of(run.out, "read_file(missing.py)", "error: File not found: missing.py"), run.out
    assert result_of(run.out, "glob(*.txt)", "1 file"), run.out
    assert "ALL DONE" in run.out
    assert run.out.index("● glob") < run.out.index("ALL DONE")
    assert "resume this session with: compact-agent --resume " in run.out


def echo(req) -> Reply:
    return Reply.text("answer to: " + [m for m in req.messages if m.get("role") == "user"][-1]["content"][:40])


async def test_first_message_then_continue_shows_the_last_exchanges(tmp_path):
    first = await drive(tmp_path, echo, [], first_message="remember PELICAN")
    assert first.prompts == ["remember PELICAN"]
    again = await drive(tmp_path, echo, [], continue_last=True)
    assert "› remember PELICAN" in again.out and "answer to: remember PELICAN" in again.out
    assert again.out.index("remember PELICAN") < again.out.index("resume this session")


async def test_multi_line_input_by_backslash_and_esc_enter(tmp_path):
    # typed: `\` then Enter in a read of its own (written at once, they are a paste: paste_keys.py)
    run = await drive(tmp_path, echo, [["line one\\", "\r", "line two\r"], "alpha\x1b\rbeta\r"])
    assert run.prompts == ["line one\nline two", "alpha\nbeta"]


async def test_up_arrow_history_is_shared_by_the_sessions_of_a_project(tmp_path):
    await drive(tmp_path, echo, ["the first prompt\r"])
    run = await drive(tmp_path, echo, ["\x1b[A\r"])  # a new session: up-arrow brings the old prompt back
    assert run.prompts == ["the first prompt"]


async def test_bang_runs_a_command_and_its_output_goes_with_the_next_message(tmp_path):
    run = await drive(tmp_path, echo, ["!echo SHELL-$((40+2))\r", "what did it print?\r"])
    assert "SHELL-42" in run.out
    assert len(run.prompts) == 1  # the command alone sent nothing
    assert "$ echo SHELL-$((40+2))" in run.prompts[0] and "SHELL-42" in run.prompts[0]
    assert run.prompts[0].endswith("what did it print?")


async def test_esc_interrupts_a_turn_and_the_repl_goes_on(tmp_path):
    import threading

    release = threading.Event()
    inp_holder: list = []

    def stuck(req) -> Reply:
        users = [m for m in req.messages if m.get("role") == "user"]
        if "second" in users[-1]["content"]:
            return Reply.text("SECOND ANSWER")
        inp_holder[0].send_text("\x1b")  # the user presses Esc while the model works
        release.wait(30)
        return Reply.text("too late")

    try:
        run = await drive(tmp_path, stuck, ["first\r", "second\r"], pipe=inp_holder)
    finally:
        release.set()
    assert "interrupted" in run.out and "SECOND ANSWER" in run.out
    assert "too late" not in run.out


def test_completer_offers_commands_and_paths(tmp_path):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from compact_agent.ui.prompt_input import ReplCompleter

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / ".git").mkdir()
    comp = ReplCompleter(["compact", "context", "help"], tmp_path)

    def texts(line: str) -> list[str]:
        return [c.text for c in comp.get_completions(Document(line), CompleteEvent(completion_requested=True))]

    assert texts("/co") == ["/compact", "/context"]
    assert texts("read @s") == ["@src/"] and texts("read @src/m") == ["@src/main.py"]
    assert texts("@") == ["@src/"]  # hidden folders are not offered


def test_the_prompt_completes_on_tab_and_keeps_history_per_project(tmp_path):
    from prompt_toolkit.history import FileHistory

    from compact_agent.ui.prompt_input import ReplCompleter, make_prompt

    p = make_prompt(tmp_path / "proj-root", ["help"], tmp_path)
    assert isinstance(p.completer, ReplCompleter) and not p.complete_while_typing  # Tab asks for it
    assert isinstance(p.history, FileHistory) and p.history.filename == str(tmp_path / "proj-root" / "prompt_history")


def test_spinner_label_counts_seconds_and_shows_the_context():
    from compact_agent.ui.turn_view import SpinnerLabel

    now = [100.0]
    label = SpinnerLabel(lambda: now[0], lambda: 8_400)
    now[0] = 112.7
    assert label.text() == "thinking… 12s · context 8.4k tokens · esc to interrupt"
    label.doing = "running bash"
    assert label.text().startswith("running bash… 12s")


def big_results(req) -> Reply:
    if not has_tool_result(req):
        return Reply.tools([("read_file", {"path": "long.py"}), ("grep", {"pattern": "hit"}),
                            ("bash", {"command": "seq 1 3000; exit 3"})])
    return Reply.text("SEEN")


def make_big_project(tmp_path) -> None:
    (tmp_path / "project").mkdir(exist_ok=True)
    (tmp_path / "project" / "long.py").write_text("".join(f"x{i} = {i}\n" for i in range(241)))
    (tmp_path / "project" / "hits.txt").write_text("hit\n" * 150)


async def test_tool_lines_count_the_whole_result_not_its_preview(tmp_path):
    make_big_project(tmp_path)
    run = await drive(tmp_path, big_results, ["go\r"], permission_mode="yes")
    assert result_of(run.out, "read_file(long.py)", "241 lines"), run.out
    assert result_of(run.out, "grep(hit)", "150 matches"), run.out
    assert result_of(run.out, "bash(seq 1 3000; exit 3)", "exit code: 3"), run.out  # 3000: in the tail under it
    # Three calls made together: at most the last one's result comes right under its call line.
    assert sum(line.startswith("  ⎿ ") and "): " in line for line in run.out.splitlines()) >= 2


MARKDOWN = "I will **add** a check.\n\n```python\nx = 1\n\ny = 2\n```\n\n- one\n- two"


async def test_answers_render_as_markdown_after_a_marker_with_a_blank_line_after(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text(MARKDOWN), ["explain\r", "/status\r"])
    assert "⏺ I will add a check." in run.out and "**" not in run.out and "```" not in run.out
    assert "x = 1" in run.out and "y = 2" in run.out and "• one" in run.out
    after = run.out[run.out.index("• two"):]
    assert after.split("\n")[1].strip() == ""  # a blank line before what comes next


async def test_an_answer_ending_in_a_code_block_has_one_blank_line_after_it(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("The fix:\n\n```python\nreturn []\n```"), ["fix\r", "/plan\r"])
    after = [line.strip() for line in run.out[run.out.index("return []"):].split("\n")[1:4]]
    assert after[0] == "" and after[1] == "no plan yet (the model writes one with todo_write)", after


def test_finished_blocks_render_while_the_answer_still_streams():
    import io

    from rich.console import Console

    from compact_agent.ui.turn_view import TurnView, finished_blocks

    assert finished_blocks("para one\n\npara") == len("para one\n\n")
    assert finished_blocks("```\na\n\nb") == 0  # a blank line inside a fence ends nothing
    c = Console(record=True, width=80, file=io.StringIO(), force_terminal=False)
    view = TurnView(c, lambda: 0)
    view.on_text("The **first** paragraph.\n")
    assert c.export_text(clear=False) == ""
    view.on_text("\nThe second")
    assert "The first paragraph." in c.export_text(clear=False) and "second" not in c.export_text(clear=False)
    view.end()
    assert "The second" in c.export_text()


async def test_a_commands_last_lines_show_under_its_line(tmp_path):
    make_big_project(tmp_path)
    run = await drive(tmp_path, big_results, ["go\r"], permission_mode="yes")
    assert "    … 2997 lines before · ctrl+o shows all\n    2998\n    2999\n    3000" in run.out


async def test_expand_shows_the_last_turns_tool_output_in_full(tmp_path):
    make_big_project(tmp_path)
    run = await drive(tmp_path, big_results, ["go\r", "/expand\r", "/expand 1\r", "/expand x\r"],
                      permission_mode="yes")
    turn, expanded = run.out.split("SEEN", 1)
    expanded, last = expanded.split("3 tool calls in full", 1)
    last, bad = last.split("1 tool call in full", 1)
    assert "    1500\n" not in turn  # under its tool line a command shows only its last lines
    assert "● read_file(long.py)" in expanded and "● grep(hit)" in expanded and "● bash(seq 1 3000; exit 3)" in expanded
    assert "    1500\n" in expanded and "x240 = 240" in expanded
    assert "● bash(" in last and "read_file" not in last
    assert "usage: /expand [N]" in bad


def one_of_each(req) -> Reply:
    done = sum(1 for m in req.messages if m.get("role") == "tool")
    steps = [("read_file", {"path": "one.py"}), ("grep", {"pattern": "x = 1"}),
             ("edit_file", {"path": "one.py", "old_string": "x = 1", "new_string": "x = 2"}),
             ("todo_write", {"todos": [{"content": "look", "status": "done"}, {"content": "fix", "status": "pending"}]})]
    return Reply.tools([steps[done]]) if done < len(steps) else Reply.text("SEEN")


async def test_tool_lines_say_one_in_the_singular_and_end_in_no_bare_colon(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "one.py").write_text("x = 1\n")
    run = await drive(tmp_path, one_of_each, ["go\r"], permission_mode="yes")
    assert "⎿ 1 line\n" in run.out and "⎿ 1 match\n" in run.out
    assert "⎿ Edited one.py (1 replacement) · lines 1-1\n" in run.out  # not "…; lines 1-2 now read:"
    assert "⎿ Plan updated (1/2 done)\n" in run.out
    assert not [line for line in run.out.splitlines() if "⎿" in line and line.rstrip().endswith(":")]


def test_a_result_not_under_its_own_call_names_the_call() -> None:
    from compact_agent.ui.tool_lines import Lines

    lines = Lines()
    events = [{"type": "tool_call", "id": "a", "tool": "grep", "args": {"pattern": "item1399", "path": "d.json"}},
              {"type": "tool_call", "id": "b", "tool": "read_file", "args": {"path": "nosuch.txt"}},
              {"type": "tool_result", "id": "b", "tool": "read_file", "error": True, "summary": "File not found"},
              {"type": "tool_result", "id": "a", "tool": "grep", "summary": "1 match"},
              {"type": "tool_call", "id": "c", "tool": "bash", "args": {"command": "ls"}},
              {"type": "tool_result", "id": "c", "tool": "bash", "summary": "3 lines"}]
    assert [lines.line(e) for e in events] == [
        "● grep(item1399 in d.json)", "● read_file(nosuch.txt)", "  ⎿ error: File not found",
        "  ⎿ grep(item1399 in d.json): 1 match", "● bash(ls)", "  ⎿ 3 lines"]


PLAN = "Here is **the plan**:\n\n```python\nprint('hi')\n```\n\n- one\n- two"


async def test_a_resumed_session_shows_its_answers_rendered_as_they_were_live(tmp_path):
    """`-c` and `/resume N` replay the last exchanges: the answer's markdown rendered after its `⏺`,
    as the live answer was, not its raw `**` and fences."""
    def shown(text: str) -> str:  # the lines drawn, without blank lines and padding: a live stream's
        return "\n".join(line.rstrip() for line in text.splitlines() if line.strip())  # chunks may add a blank

    first = await drive(tmp_path, lambda req: Reply.text(PLAN), ["make a plan\r"])
    live = shown(first.out[first.out.index("⏺"):first.out.index("resume this session")])
    assert live.startswith("⏺ Here is the plan:") and "print('hi')" in live and "• two" in live and "**" not in live
    again = await drive(tmp_path, lambda req: Reply.text("ok"), [], continue_last=True)
    assert "› make a plan" in again.out and live in shown(again.out)
    assert "**" not in again.out and "```" not in again.out
    other = await drive(tmp_path, lambda req: Reply.text("ok"), ["/resume 1\r"])  # from a new session
    assert live in shown(other.out) and "**" not in other.out
