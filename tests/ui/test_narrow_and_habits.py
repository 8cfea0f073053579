"""Narrow terminals and the habits Claude Code and Codex users bring: /context, /cost, /help and
/history laid out for the width there is; /quit and /q; did-you-mean; Ctrl-C twice exits."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def session(tmp_path) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url="http://127.0.0.1:9/v1", api_key="k",
                                       home=tmp_path / "home"))


async def shown(s: AgentSession, line: str, width: int) -> list[str]:
    c = Console(record=True, width=width, file=io.StringIO(), markup=False)
    await dispatch(s, line, c)
    return c.export_text().splitlines()


async def test_context_cost_and_help_fit_80_columns(tmp_path):
    s = session(tmp_path)
    try:
        narrow = await shown(s, "/context", 80)
        assert all(len(line.rstrip()) <= 80 for line in narrow)
        assert any(line.startswith("⛁ system prompt") for line in narrow)  # the legend under the grid, whole
        assert sum(1 for line in narrow if line.count("⛶") + line.count("⛁") + line.count("⛝") == 20) == 10
        wide = await shown(s, "/context", 160)
        assert any("⛁ system prompt" in line and line.startswith(("⛁", "⛶")) for line in wide)  # beside it
        cost = "\n".join(await shown(s, "/cost", 80))
        assert "no requests yet in this session" in cost and "…" not in cost  # the table's width: test_cost_narrow
        helped = await shown(s, "/help", 80)
        assert all(len(line.rstrip()) <= 80 for line in helped)
        assert any(line.startswith("/exit (/quit, /q)") for line in helped)
        assert any("/compact [instructions] [--from N | --up-to N]" in line for line in helped) or \
            any("/compact [instructions]" in line for line in helped)
        assert "did you mean /status?" in "\n".join(await shown(s, "/statsu", 80))
    finally:
        s.close()


async def test_help_lines_up_its_columns_in_a_useful_order(tmp_path):
    s = session(tmp_path)
    try:
        for width in (80, 160):
            rows = [line for line in await shown(s, "/help", width) if line.startswith("/")]
            names = [row.split()[0] for row in rows]
            assert names[:4] == ["/help", "/status", "/context", "/cost"] and names[-1] == "/exit", names
            starts = {len(row) - len(row[row.index(" "):].lstrip()) for row in rows if not row.startswith("/exit")}
            assert starts == {len("/exit (/quit, /q)  ")}, (width, starts)  # one column for every description
    finally:
        s.close()


def test_a_resumed_sessions_earlier_exchanges_are_counted_in_words():
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    from compact_agent.ui.history_view import last_exchanges

    talk = [m for i in range(4) for m in (ModelRequest(parts=[UserPromptPart(f"q{i}")]),
                                          ModelResponse(parts=[TextPart(f"a{i}")]))]
    assert last_exchanges(talk)[0] == "… 1 earlier exchange"
    assert last_exchanges(talk + talk[:2])[0] == "… 2 earlier exchanges"


def test_clip_words_cuts_at_a_word_boundary():
    assert render.clip_words("alpha beta gamma delta", 14) == "alpha beta…"
    assert render.clip_words("short", 14) == "short"
    assert render.when("2026-12-01T18:29:03+00:00").startswith("2026-12-01 ")


async def test_q_leaves_and_ctrl_c_twice_exits(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/q\r", "not sent\r"])
    assert run.prompts == []
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["\x03", "\x03", "not sent either\r"])
    assert run.prompts == [] and "press Ctrl-C again to exit" in run.out


async def test_at_file_mentions_say_what_was_attached(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("a\nb\nc\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["read @notes.txt and @missing.py\r"])
    assert "⎿ attached notes.txt (3 lines)" in run.out
    assert "⎿ @missing.py: no such file, not attached" in run.out


async def test_custom_slash_commands_from_the_project_folders(tmp_path):
    cwd = tmp_path / "project"
    (cwd / ".compact-agent" / "commands").mkdir(parents=True)
    (cwd / ".claude" / "commands").mkdir(parents=True)
    (cwd / ".compact-agent" / "commands" / "review.md").write_text("---\ndescription: x\n---\nReview $ARGUMENTS carefully")
    (cwd / ".claude" / "commands" / "fixlint.md").write_text("Fix the lint errors")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/help\r", "/review src/a.py\r", "/fixlint now\r"])
    assert "/review" in run.out and "custom: .compact-agent/commands/review.md" in run.out
    assert run.prompts == ["Review src/a.py carefully", "Fix the lint errors\n\nnow"]


async def test_memory_lists_the_instruction_files_and_model_lists_the_models(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / ".git").mkdir()
    (cwd / "AGENTS.md").write_text("Run make test.\n")
    (cwd / "CLAUDE.md").write_text("Be brief.\n")
    s = session(tmp_path)
    try:
        out = "\n".join(await shown(s, "/memory", 120))
        assert "1. " in out and "AGENTS.md" in out and "CLAUDE.md" in out and "/notes" in out
        assert "no notes yet" in "\n".join(await shown(s, "/notes", 120)) or "off" in "\n".join(
            await shown(s, "/notes", 120))
        models = "\n".join(await shown(s, "/model", 120))
        assert "now: fake-model" in models and "deepseek-chat" in models and "claude-sonnet-4-5" in models
    finally:
        s.close()


async def test_polish_compact_flags_diff_outside_git_and_layer_words(tmp_path):
    from compact_agent.context.plumbing.events import Event

    s = session(tmp_path)
    try:
        assert "unknown option --bogus for /compact" in "\n".join(await shown(s, "/compact --bogus", 120))
        diff = "\n".join(await shown(s, "/diff", 120))
        assert "not a git repository:" in diff and "usage" not in diff.lower()
    finally:
        s.close()
    line = render.layer_line(Event("microcompact", "clear", tokens_before=5000, tokens_after=880, ids=["a"]))
    assert line == "context: old tool results cleared (1 result), freed 4,120 tokens"
    assert render.layer_line(Event("budget", "spill", tokens_before=9000, tokens_after=1000, ids=["a", "b"])) == \
        "context: large tool results moved to files (a preview stays) (2 results), freed 8,000 tokens"
    # A saving under a hundredth of the window is noise ("freed 36 tokens" at 9% of a 16K window).
    snipped = Event("snip", "snip", tokens_before=1_036, tokens_after=1_000, ids=["a"])
    assert render.layer_line(snipped, window=16_000) is None and render.layer_line(snipped) is not None
    assert render.layer_line(Event("snip", "snip", tokens_before=1_160, tokens_after=1_000), window=16_000) == \
        "context: empty results, repeated reminders, earlier identical reads dropped, freed 160 tokens"
    for ours in (Event("thrash", "escalate", tokens_before=9000, tokens_after=4000),  # bookkeeping, not news
                 Event("calibration", "rejected", tokens_before=9000, tokens_after=4000)):
        assert render.layer_line(ours) is None


def test_the_resume_list_names_init_by_its_command(tmp_path):
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from compact_agent.session.store import SessionStore
    from compact_agent.ui.more_commands import INIT_PROMPT
    from compact_agent.ui.sessions_list import first_prompt

    store = SessionStore(tmp_path, "s1")
    store.append([ModelRequest(parts=[UserPromptPart(INIT_PROMPT)])])
    assert first_prompt(store.path)[0] == "/init"


def long_summary(req) -> Reply:
    from tests.e2e.scripted import is_notes_request, is_summary_request

    if is_summary_request(req):
        return Reply.text("<summary>" + "a long summary " * 300 + "</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok")


async def test_compact_that_would_not_shrink_says_what_it_would_keep(tmp_path):
    """Two short turns: what a compaction keeps besides the summary already holds as many tokens as
    the conversation, so no summary is asked for (it would be paid for and thrown away) and the
    refusal says the least a compaction would keep."""
    import re

    from tests.e2e.scripted import is_summary_request
    from tests.fakes.openai_server import FakeOpenAIServer

    with FakeOpenAIServer(long_summary) as server:
        run = await drive(tmp_path, long_summary, ["hi\r", "there\r", "/compact\r"], server=server)
        summaries = sum(is_summary_request(r) for r in server.requests)
    out = " ".join(run.out.split())
    said = re.search(r"not compacted: a compaction would keep at least ([\d,]+) tokens, (?:more than|as many as) "
                     r"the ([\d,]+) in use now even without a summary: your messages and the files changed ([\d,]+), "
                     r"the newest message \d+, instructions and tools ([\d,]+)\.", out)
    assert said, out
    kept, now, frame, fixed = (int(g.replace(",", "")) for g in said.groups())
    assert kept >= now and ("more than" in out) == (kept > now) and frame + fixed <= kept
    assert summaries == 0 and "Nothing was changed" in out and "would not shrink" not in out


async def test_compact_whose_summary_would_not_shrink_says_what_it_would_keep(tmp_path):
    """Longer answers: a summary could shrink the conversation, so one is asked for, but this one is
    too long; the refusal says what it would keep, the summary first."""
    import re

    def answers(req) -> Reply:
        from tests.e2e.scripted import is_summary_request

        if is_summary_request(req):
            return Reply.text("<summary>" + "a long summary " * 600 + "</summary>")
        return Reply.text("a longer answer " * 120)

    run = await drive(tmp_path, answers, ["hi\r", "there\r", "and more\r", "/compact\r"])
    out = " ".join(run.out.split())
    said = re.search(r"not compacted: a compaction would keep ([\d,]+) tokens, (?:more than|as many as) the "
                     r"([\d,]+) in use now: the summary ([\d,]+), the newest message \d+, instructions and tools "
                     r"([\d,]+)\.", out)
    assert said, out
    kept, now, summary, fixed = (int(g.replace(",", "")) for g in said.groups())
    assert kept >= now and summary > 1_000 and summary + fixed <= kept  # the long summary is what does not fit
    assert "Nothing was changed" in out and "at least" not in out


async def test_status_fits_80_columns(tmp_path):
    s = session(tmp_path)
    try:
        lines = await shown(s, "/status", 80)
        assert all(len(line.rstrip()) <= 80 for line in lines), lines
        assert any(line.rstrip().endswith("tokens until auto-compaction") for line in lines)
        text = "\n".join(lines)  # the layers' table: one header line, the layers in words
        assert "what the layers keep out of the context now" in text and "old tool results cleared" in text
        assert "microcompact" not in text and "budget" not in text
    finally:
        s.close()


async def test_archive_paths_are_never_split_across_lines(tmp_path):
    from tests.fakes.openai_server import FakeOpenAIServer

    from .test_commands_terminal import answer
    from .test_commands_terminal import session as session_on

    with FakeOpenAIServer(answer) as server:
        s = session_on(tmp_path, server)
        try:
            await s.run_turn("turn a")
            await s.run_turn("turn b")
            compacted = await shown(s, "/compact", 60)  # a path longer than the terminal is wide
            history = await shown(s, "/history", 60)
            archive = str(s.cm.compactions[-1].archive)
        finally:
            s.close()
    assert len(archive) > 60
    assert any(line.endswith(f"archived at {archive}") for line in compacted), compacted
    at = next(i for i, line in enumerate(history) if line.strip() == "the conversation before it:")
    assert history[at + 1] == f"  {archive}", history  # on its own line, whole


def test_a_session_row_says_message_for_one_and_keeps_its_columns() -> None:
    from compact_agent.ui.sessions_list import SessionRow, format_row

    one = format_row(1, SessionRow("20261202-1030-ab12", "2026-12-02 10:30", 1, "hi"))
    many = format_row(2, SessionRow("20261202-1031-cd34", "2026-12-02 10:31", 12, "fix the parser"))
    assert one.endswith("    1 message   hi") and many.endswith("   12 messages  fix the parser")
    assert one.index("hi") == many.index("fix the parser")  # the prompts line up


async def test_a_file_read_file_would_refuse_is_not_said_to_be_attached(tmp_path):
    """A file over the read limit (many lines, or one long line) and a binary file: the model would
    get only read_file's refusal, so the REPL says "not attached" and why, and sends nothing of them."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "huge.txt").write_bytes(b"a line of a big log\n" * 110_000)  # 2.2 MB, over the 2,000,000-byte limit
    (cwd / "long.txt").write_bytes(b"x" * 3_000_000)  # one 3 MB line
    (cwd / "binary.bin").write_bytes(b"\0\x01\x02 data, \n" * 100)
    (cwd / "notes.txt").write_text("a\nb\nlast line without a newline")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["read @huge.txt @long.txt @binary.bin @notes.txt\r"])
    assert "⎿ @huge.txt: not attached (2,200,000 bytes, over the 2,000,000-byte read limit;" in run.out
    assert "⎿ @long.txt: not attached (3,000,000 bytes, over the 2,000,000-byte read limit;" in run.out
    assert "⎿ @binary.bin: not attached (a binary file, 1,100 bytes)" in run.out
    assert "⎿ attached notes.txt (3 lines)" in run.out
    for name in ("huge.txt", "long.txt", "binary.bin"):
        assert f"attached {name}" not in run.out
    sent = str(run.server.requests[-1].messages)
    assert "last line without a newline" in sent
    assert "read limit" not in sent and "binary file" not in sent  # no refusal went instead of a file
