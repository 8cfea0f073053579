"""Slash commands at their edges: /model without a name or with words it does not take, /rewind
and /resume given a number past the list. Each answer is one line a user can act on, never an
exception's text (`list index out of range`) or a shell command to type inside the REPL."""

from __future__ import annotations

import io

import pytest

from compact_agent.agent.run.runner import AgentSession
from compact_agent.models import ConfigError
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from tests.fakes.openai_server import FakeOpenAIServer

from .repl_driver import drive
from .test_commands_terminal import answer, session

EXCEPTION_TEXT = ("list index out of range", "IndexError", "ValueError", "Traceback", "compact-agent sessions")


async def show(s: AgentSession, line: str) -> str:
    c = render.make_console()
    c.file = io.StringIO()
    c.record = True
    await dispatch(s, line, c)
    return " ".join(c.export_text().split())


def clean(out: str) -> None:
    for text in EXCEPTION_TEXT:
        assert text not in out, (text, out)


async def test_model_without_a_name_changes_the_window_of_the_model_in_use(tmp_path):
    run = await drive(tmp_path, answer, ["/model --window 64000\r", "/status\r", "/model --window=80,000\r"])
    clean(run.out)
    assert "window 32,768 → 64,000 · model fake-model, as it was" in run.out
    assert "/ window 64,000 tokens" in run.out  # /status: the session runs with it
    assert "window 64,000 → 80,000 · model fake-model, as it was" in run.out


async def test_model_without_a_name_has_the_checks_and_leaves_a_print_runs_history(tmp_path):
    """Said as `-p` says it: a switch made by a run that sends nothing more compacts nothing, the
    session keeping its history (the REPL's /model compacts first: the test below)."""
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            with pytest.raises(ConfigError, match="the minimum is"):  # the REPL shows it as one line
                await show(s, "/model --window 2048")
            assert s.cm.limits.window == 32_768  # refused: too small for the tools
            for i in range(6):
                await s.run_turn(f"turn {i}")
            window = 6_144  # its threshold is below what the conversation holds now, as its layers shape it
            assert s.context_tokens() > 7_000
            before = s.store.path.read_bytes()
            out = " ".join((await show(s, f"/model --window {window}")).split())
            clean(out)
            assert "compacted" not in out.replace("not compacted", ""), out
            assert "not compacted: the context" in out and "the session keeps its history as it was" in out, out
            assert f"window 32,768 → {window:,} · model fake-model, as it was" in out
            assert s.cm.limits.window == window and s.info.name == "fake-model"
            assert s.store.path.read_bytes().startswith(before)  # nothing rewritten
            assert s.context_tokens() > s.cm.limits.threshold
        finally:
            s.close()


async def test_a_compaction_the_window_needs_is_said_once_in_the_repl_with_its_archive(tmp_path):
    """The REPL says the compaction by its event line, as every compaction: the command said it a
    second time (`compacted first: …`), and neither said where the transcript before it went."""
    turns = [f"turn {i}\r" for i in range(6)]
    run = await drive(tmp_path, answer, [*turns, "/model --window 6144\r"])
    clean(run.out)
    assert run.out.count("compacted to fit the new 6,144-token window (full): ") == 1, run.out
    assert "compacted first" not in run.out
    archive = run.out.split("full transcript archived at ")[1].split()[0]
    assert archive.startswith((tmp_path / "home").as_posix()) and archive.endswith(".jsonl"), run.out
    assert "window 32,768 → 6,144 · model fake-model, as it was" in run.out


async def test_model_refuses_words_and_options_it_does_not_take(tmp_path):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            extra = await show(s, "/model a b c")
            assert extra == "/model takes one model name; not understood: b c (usage: /model [NAME] [--window N])"
            assert "unknown option --frob for /model" in await show(s, "/model gpt-4.1 --frob")
            assert "--window takes one number of tokens" in await show(s, "/model --window")
            assert "--window takes one number of tokens" in await show(s, "/model x --window abc")
            assert "--window takes one number of tokens" in await show(s, "/model --window 9000 --window 9000")
            assert await show(s, "/model --window 0") == "--window must be a positive number of tokens"
            with pytest.raises(ConfigError, match=r"the minimum is [\d,]+ \(/model NAME --window N\)$"):
                await show(s, "/model --window 10")  # one minimum, the session's: not 1,024 here, 5,120 there
            assert "a model name cannot be empty" in await show(s, "/model ''")
            assert "cannot read the arguments" in await show(s, "/model 'gpt")
            assert s.info.name == "fake-model" and s.cm.limits.window == 32_768  # nothing switched
        finally:
            s.close()
    from compact_agent.ui.model_command import model_args

    assert model_args("") == (None, None) and model_args("gpt-4.1") == ("gpt-4.1", None)
    assert model_args("--window 64_000 gpt-4.1") == ("gpt-4.1", 64_000)


async def test_words_after_a_command_that_takes_none_are_refused_not_ignored(tmp_path):
    """`/cost extra` used to show the cost as if nothing had been typed after it; a mistyped
    `/status --json` or `/clear all` now says what it did not understand, and does nothing."""
    from compact_agent.ui.command_registry import COMMANDS

    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            before = s.session_id
            for name in ("help", "status", "context", "cost", "plan", "notes", "history", "permissions", "config",
                         "mcp", "diff", "clear", "exit"):
                assert not COMMANDS[name].takes_args, name
                out = await show(s, f"/{name} extra words")
                assert out == f"/{name} takes no arguments; not understood: extra words", (name, out)
            assert s.session_id == before  # /clear refused: no new session
            assert "no requests yet in this session" in await show(s, "/cost")  # without words it runs
            assert (await show(s, "/memory 7")).startswith("no instruction file 7: none is loaded")
        finally:
            s.close()


async def test_model_listing_and_switch_by_name_still_work(tmp_path):
    with FakeOpenAIServer(answer, serves=["other-model"]) as server:
        s = session(tmp_path, server)
        try:
            listing = await show(s, "/model")
            assert "now: fake-model" in listing and "deepseek-chat" in listing
            switched = await show(s, "/model other-model --window 40000")
            assert "model fake-model → other-model · window 40,000" in switched
            assert s.info.name == "other-model"
        finally:
            s.close()


async def test_rewind_past_the_checkpoints_says_how_many_there_are(tmp_path):
    run = await drive(tmp_path, answer, ["hello\r", "/rewind 99\r"])
    clean(run.out)
    assert "no checkpoint 99; there is 1, number 0 (/rewind lists them)" in run.out
    assert "there are 1" not in run.out
    (tmp_path / "three").mkdir()
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path / "three", server)
        try:
            for i in range(3):
                await s.run_turn(f"turn {i}")
            assert await show(s, "/rewind 3") == "no checkpoint 3; there are 3, numbered 0 to 2 (/rewind lists them)"
            assert len(s.checkpoints.list()) == 3  # nothing rewound
        finally:
            s.close()


async def test_resume_a_number_past_the_list_says_so_and_an_unknown_id_points_to_resume(tmp_path):
    with FakeOpenAIServer(answer) as server:
        first = session(tmp_path, server)
        await first.run_turn("the first session")
        first.close()
        s = session(tmp_path, server)
        try:
            await s.run_turn("the second session")
            second = s.session_id
            past = await show(s, "/resume 9")
            assert past == "no session 9 in the list: there is 1 other session; /resume lists them", past
            unknown = await show(s, "/resume 19990101-000000")
            assert unknown == "no session 19990101-000000 in this directory; /resume lists them", unknown
            assert "the second session" in s.store.path.read_text()  # still in the same session
            resumed = await show(s, "/resume 1")
            assert f"resumed session {first.session_id}" in resumed
            back = await show(s, f"/resume {second}")  # and by id
            assert f"resumed session {second}" in back
        finally:
            s.close()


async def test_resume_in_the_repl_shows_clean_lines(tmp_path):
    run = await drive(tmp_path, answer, ["hello\r", "/resume 9\r", "/resume nosuchid\r"])
    clean(run.out)
    assert "no session 9 in the list: there are no other sessions in this directory" in run.out
    assert "no session nosuchid in this directory; /resume lists them" in run.out


async def test_a_checkpoint_is_labelled_with_what_was_typed_not_the_shell_output_before_it(tmp_path):
    """`!ls` then `fix it`: the turn's message starts with the command's output, and /rewind listed
    (and gave back for editing) `I ran this shell command myself: $ ls …` instead of `fix it`."""
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("I ran this shell command myself:\n$ ls\nREADME.md\n\nfix it", typed="fix it")
            await s.run_turn("and test it")  # all of it typed
            assert [cp.prompt for cp in s.checkpoints.list()] == ["fix it", "and test it"]
            out = await show(s, "/rewind")
            assert "› fix it" in out and "I ran this shell command" not in out
        finally:
            s.close()


async def test_expand_after_a_compaction_says_so_also_in_a_resumed_session(tmp_path):
    """`-p /expand -c` after a compaction said "no tool calls in this session yet": the resumed
    run had made no compaction itself, so the message did not know of the one on record."""
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            for i in range(3):
                await s.run_turn(f"turn {i}")
            await s.compact("")
            assert (await show(s, "/expand")).startswith("no tool calls since the last compaction")
            sid = s.session_id
        finally:
            s.close()
        again = session(tmp_path, server, session_id=sid)
        try:
            assert not again.cm.compactions and again.messages  # resumed: none made by this run
            assert (await show(again, "/expand")).startswith("no tool calls since the last compaction")
        finally:
            again.close()
        fresh = session(tmp_path, server)
        try:
            assert await show(fresh, "/expand") == "no tool calls in this session yet"
        finally:
            fresh.close()


async def test_a_capitalised_typo_is_suggested_and_memory_refuses_a_number_without_files(tmp_path):
    """`/CONTEXTT` got no "did you mean /context" (`/CONTEXT` is /context: test_command_names_any_case.py);
    `/memory x` with no instruction file loaded was taken as `/memory`."""
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            assert await show(s, "/CONTEXTT") == "unknown command /CONTEXTT (did you mean /context?); /help lists them"
            assert not s.instructions_paths
            assert (await show(s, "/memory 1")).startswith("no instruction file 1: none is loaded")
            assert (await show(s, "/memory")).startswith("no instruction files loaded")
        finally:
            s.close()


async def test_resume_of_a_session_in_use_says_so_by_number_and_by_id(tmp_path):
    """`/resume N` of a session another process holds said "no session <the REPL's own unsaved id>":
    going back to a session that saved nothing yet looked for its file. Both ways say the session is
    in use, and the REPL goes on in its own session, which the other one's file never gets."""
    from compact_agent.session.store import SessionStore

    with FakeOpenAIServer(answer) as server:
        first = session(tmp_path, server)
        await first.run_turn("the first session")
        first.close()
        before = first.store.path.read_bytes()
        holder = SessionStore(first.store.root, first.session_id)
        holder.lock()  # another process works in it
        try:
            run = await drive(tmp_path, answer, ["/resume 1\r", f"/resume {first.session_id}\r", "hello\r"],
                              server=server)
        finally:
            holder.unlock()
    clean(run.out)
    own = run.out.split("--resume ")[-1].split()[0]
    busy = (f"session {first.session_id} is in use by another compact-agent process (wait for it to finish, then "
            f"/resume it); this REPL goes on in session {own}")
    assert " ".join(run.out.split()).count(busy) == 2, run.out  # no --continue/--resume to leave out here
    assert "no session" not in run.out
    assert first.store.path.read_bytes() == before
    assert own != first.session_id and "hello" in (first.store.root / f"{own}.jsonl").read_text()


async def test_rewind_blames_no_compaction_for_a_rewrite_that_was_none(tmp_path):
    """A session whose history a program using the library edited (an answer asked for again) has
    a rewrite that is no compaction: /rewind said 'a compaction dropped them' of a session never compacted."""
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            s.store.rewrite({"trigger": "history_changed", "strategy": "replace", "tokens_before": 0,
                             "tokens_after": 0, "archive": "", "time": ""}, [])
            assert await show(s, "/rewind 5") == "no checkpoints yet: each message you send makes one"
        finally:
            s.close()


async def test_rewind_without_checkpoints_says_why_there_are_none(tmp_path):
    """After everything was rewound it said "a compaction drops them all", with no compaction made."""
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            assert await show(s, "/rewind 5") == "no checkpoints yet: each message you send makes one"
            await s.run_turn("one")
            await s.run_turn("two")
            assert (await show(s, "/rewind 0")).startswith("rewound")
            left = await show(s, "/rewind 5")
            assert left == "no checkpoints left: all of them were rewound; each message you send makes a new one"
            assert await show(s, "/rewind") == left
            for i in range(3):
                await s.run_turn(f"turn {i}")
            await s.compact()  # it keeps them: they point into its archive now
            assert await show(s, "/rewind 5") == "no checkpoint 5; there are 3, numbered 0 to 2 (/rewind lists them)"
            s.checkpoints.drop_all()  # as an earlier version did at a compaction
            assert (await show(s, "/rewind 5")).startswith("no checkpoints: an earlier version dropped them")
        finally:
            s.close()
