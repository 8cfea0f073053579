"""In-process sessions against the fake server: manual compaction, the circuit breaker, @mentions."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .scripted import FileTaskAgent, is_notes_request, is_summary_request, make_project, task_text


def session(tmp_path: Path, server: FakeOpenAIServer, window: int = 16_000, **kw) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                          context_window=window, permission_mode="yes", home=tmp_path / "home", **kw)
    return AgentSession(opts)


def parser_talk(req):
    """A model that answers at length and summarises the talk about the parser when asked."""
    if is_summary_request(req):
        return Reply.text("<analysis>x</analysis><summary>We discussed the parser and its tests at length.</summary>")
    return Reply.text("answer " + "words " * 300)


async def test_manual_compact_with_instructions(tmp_path):
    with FakeOpenAIServer(parser_talk) as server:
        s = session(tmp_path, server)
        for i in range(3):
            await s.run_turn(f"question {i}: keep the API stable")
        result = await s.compact("focus on the parser tests")
        s.close()
    summary_reqs = [r for r in server.requests if is_summary_request(r)]
    assert len(summary_reqs) == 1
    assert "focus on the parser tests" in message_text(summary_reqs[0].messages[-1])
    assert result.trigger == "manual" and result.tokens_after < result.tokens_before
    head = result.messages[0].parts[0].content
    assert "question 0: keep the API stable" in head  # the user's words, verbatim in the summary message
    everything = "\n".join(str(getattr(p, "content", "")) for m in result.messages for p in m.parts)
    assert all(f"question {i}: keep the API stable" in everything for i in range(3))
    # The session file now starts at the boundary and reloads to the same history.
    assert len(s.store.load().messages) == len(result.messages)


async def test_circuit_breaker_stops_auto_compaction_after_three_failures(tmp_path):
    n = 32  # enough files for three compactions to fail, whatever the previews of the reads take
    make_project(tmp_path / "project", n)
    agent = FileTaskAgent(n)

    def responder(req):
        if is_summary_request(req) or "<transcript>" in message_text(req.messages[-1]):
            return Reply.error(400, {"error": {"message": "summaries are broken today", "type": "invalid_request_error"}})
        return agent(req)

    events = []
    with FakeOpenAIServer(responder, window=128_000) as server:
        s = session(tmp_path, server, window=12_000, settings=Settings(memory_enabled=False, collapse_enabled=False,
                                                                       compaction_records=False,  # nothing else
                                                                       microcompact_trigger=1000))  # to fall on
        s.cm.event_sink = events.append
        out = await s.run_turn(task_text(n))
        s.close()
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    assert len(failed) == 3
    assert all("broken" in e.detail["error"] or "Rejected" in e.detail["error"] or e.detail["error"] for e in failed)
    assert s.cm.breaker_open
    assert out.output.startswith("FINAL SUM")  # the turn went on despite the failures
    shared = [r for r in server.requests if is_summary_request(r)]
    assert len(shared) == 6  # shared path then the separate fallback, three times; none after


async def test_mention_injects_a_read_and_registers_it(tmp_path):
    seen = []

    def responder(req):
        seen.append(req)
        return Reply.text("ok")

    with FakeOpenAIServer(responder) as server:
        s = session(tmp_path, server)
        (s.cwd / "notes.txt").write_text("the secret is 42\n")
        await s.run_turn("what does @notes.txt say?")
        s.close()
    text = "\n".join(message_text(m) for m in seen[0].messages)
    assert "the secret is 42" in text
    assert any(m.get("tool_calls") for m in seen[0].messages)
    assert s.read_state.is_current(s.cwd / "notes.txt")


async def test_huge_tool_output_is_spilled_and_read_back(tmp_path, monkeypatch):
    """L1: a result over the cap reaches the model as a preview naming a file it can search."""
    import re

    monkeypatch.setenv("COMPACT_AGENT_BASH_OUTPUT_MAX_CHARS", "400000")
    script = "import sys\nfor i in range(6000):\n    print('filler line', i, 'x' * 20)\n    " \
             "(i == 3000) and print('NEEDLE=4711')\n"
    seen = []

    def responder(req):
        if is_notes_request(req):
            return Reply.text("<notes>\n# Task and intent\n- find the needle\n</notes>")
        seen.append(req)
        results = [m for m in req.messages if m.get("role") == "tool"]
        if not results:
            return Reply.tools([("bash", {"command": "python3 gen.py"})])
        last = message_text(results[-1])
        hit = re.search(r"NEEDLE=(\d+)", last)
        if hit:
            return Reply.text(f"found {hit.group(1)}")
        spill = re.search(r'read_file\(path="([^"]+)"', last)
        assert spill, last[:500]
        return Reply.tools([("grep", {"pattern": "NEEDLE", "path": spill.group(1)})])

    with FakeOpenAIServer(responder, window=128_000) as server:
        from compact_agent.config import Settings

        s = session(tmp_path, server, window=128_000, settings=Settings())
        (s.cwd / "gen.py").write_text(script)
        out = await s.run_turn("run gen.py and tell me the needle")
        s.close()
    assert out.output == "found 4711"
    # The model saw a preview, not the 200K output; the full text is in a private spill file.
    second = seen[1]
    tool_msg = [m for m in second.messages if m.get("role") == "tool"][-1]
    assert len(message_text(tool_msg)) < 10_000
    spills = list((s.store.dir / "tool-results").glob("*.txt"))  # not `.by-content`, the texts they link to
    assert spills and "NEEDLE=4711" in spills[0].read_text()
    assert oct(spills[0].stat().st_mode & 0o777) == "0o600"
    # The saved session keeps the original result (layers shape only the view).
    saved = s.store.load().messages
    assert any("NEEDLE=4711" in str(getattr(p, "content", "")) for m in saved for p in m.parts)


def test_anthropic_sessions_clear_tool_results_server_side_when_asked(tmp_path):
    """L3c: asked for (`anthropic_server_clearing`), with Anthropic the request carries context
    management and microcompact stays local-off; by default microcompact clears, as with any provider."""
    from compact_agent.config import Settings
    from compact_agent.context.layers.microcompact import ANTHROPIC_BETA, Microcompact

    cwd = tmp_path / "project"
    cwd.mkdir()
    plain = AgentSession(SessionOptions(cwd=cwd, model="claude-sonnet-4-5", api_key="sk-ant-test",
                                        permission_mode="yes", home=tmp_path / "home"))
    try:
        assert plain.agent.model_settings == {"anthropic_cache_messages": True}
        assert not next(layer for layer in plain.cm.layers if isinstance(layer, Microcompact)).server_side
    finally:
        plain.close()
    asked = Settings(anthropic_server_clearing=True)
    s = AgentSession(SessionOptions(cwd=cwd, model="claude-sonnet-4-5", api_key="sk-ant-test",
                                    permission_mode="yes", home=tmp_path / "home", settings=asked))
    try:
        settings = s.agent.model_settings or {}
        assert settings.get("anthropic_betas") == [ANTHROPIC_BETA]  # context editing's beta, not only compaction's
        edits = settings["anthropic_context_management"]["edits"]
        assert edits[0]["type"].startswith("clear_tool_uses")
        assert edits[0]["trigger"]["value"] < s.cm.limits.threshold
        assert edits[0]["clear_at_least"]["value"] <= s.cm.limits.threshold // 10  # as the local layer's floor
        assert settings.get("anthropic_cache_messages") is True  # the prompt cache: Anthropic caches what is marked
        micro = next(layer for layer in s.cm.layers if isinstance(layer, Microcompact))
        assert micro.server_side
    finally:
        s.close()
    small = AgentSession(SessionOptions(cwd=cwd, model="claude-sonnet-4-5", api_key="sk-ant-test", context_window=32_000,
                                        permission_mode="yes", home=tmp_path / "home", settings=asked))
    try:  # 20K to clear of a 32K window's threshold was never there: nothing cleared old results
        edits = (small.agent.model_settings or {})["anthropic_context_management"]["edits"]
        assert edits[0]["clear_at_least"]["value"] == small.cm.limits.threshold // 10 < 20_000
    finally:
        small.close()


async def test_resumed_session_sends_the_same_prefix(tmp_path):
    """Frozen layer decisions survive a restart: the first request after resuming repeats the
    prefix of the last request before it (the provider's cache stays valid)."""
    from compact_agent.config import Settings

    # Unpriced, microcompact clears on its count trigger whatever the model keeps reaching back for.
    settings = Settings(microcompact_trigger=3, microcompact_keep_recent=1, microcompact_min_free_tokens=10,
                        priced_compaction=False)
    n = 8
    make_project(tmp_path / "project", n, filler_chars=3_000)
    agent = FileTaskAgent(n)
    with FakeOpenAIServer(agent, window=128_000) as server:
        s = session(tmp_path, server, window=100_000, settings=settings)
        await s.run_turn(task_text(n))
        sid = s.session_id
        s.close()
        cleared = s.cm.layer_savings.get("microcompact", 0)
        main = [r for r in server.requests if not (is_notes_request(r) or is_summary_request(r))]
        before = main[-1].messages
        s2 = session(tmp_path, server, window=100_000, settings=settings, session_id=sid)
        await s2.run_turn("thanks, anything else?")
        s2.close()
        main = [r for r in server.requests if not (is_notes_request(r) or is_summary_request(r))]
        after = main[-1].messages
    assert cleared > 0
    assert after[: len(before)] == before


async def test_rewind_restores_files_and_the_conversation(tmp_path):
    def responder(req):
        if is_notes_request(req):
            return Reply.text("<notes>\n# Task and intent\n- edit\n</notes>")
        last = req.messages[-1]
        if last.get("role") == "tool":
            if "original" in message_text(last):  # the read came back: now overwrite
                return Reply.tools([("write_file", {"path": "b.txt", "content": "new\n"}),
                                    ("write_file", {"path": "c.txt", "content": "created\n"})])
            return Reply.text("done")
        if "overwrite" in message_text(last):
            return Reply.tools([("read_file", {"path": "b.txt"})])
        return Reply.text("hello")

    with FakeOpenAIServer(responder) as server:
        s = session(tmp_path, server)
        (s.cwd / "b.txt").write_text("original\n")
        await s.run_turn("say hi")
        kept = len(s.messages)
        await s.run_turn("please overwrite b.txt")
        assert (s.cwd / "b.txt").read_text() == "new\n" and (s.cwd / "c.txt").exists()
        s.rewind(1)
        assert (s.cwd / "b.txt").read_text() == "original\n"
        assert not (s.cwd / "c.txt").exists()
        assert len(s.messages) == kept
        assert len(s.store.load().messages) == kept
        s.close()


async def test_a_cleared_session_still_reports_its_tool_calls(tmp_path):
    """The tool-call callback the session was made with (print mode learns from it what was
    refused) carries over /clear: a turn after it reports its calls too."""
    def responder(req):
        if req.messages[-1].get("role") == "user":
            return Reply.tools([("read_file", {"path": "notes.txt"})])
        return Reply.text("done")

    seen: list[dict] = []
    with FakeOpenAIServer(responder) as server:
        cwd = tmp_path / "project"
        cwd.mkdir()
        (cwd / "notes.txt").write_text("hello\n")
        opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                              context_window=16_000, permission_mode="yes", home=tmp_path / "home")
        s = AgentSession(opts, on_tool=seen.append)
        await s.run_turn("read the notes")
        before = len(seen)
        s.clear()
        await s.run_turn("read the notes again")
        s.close()
    assert before >= 2 and any(e.get("tool") == "read_file" for e in seen[:before])
    assert len(seen) >= 2 * before and any(e.get("tool") == "read_file" for e in seen[before:])


async def test_a_turn_with_an_attachment_is_no_change_of_history(tmp_path):
    """The attachment's results and the prompt are held as two requests; pydantic-ai merges them
    when the next turn hands the history back. That looked like a changed history: the store was
    rewritten and archived as a 'history_changed' compaction on the turn after every @file."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server)
        (s.cwd / "notes.txt").write_text("hello\n")
        await s.run_turn("hello there")
        await s.run_turn("look at @notes.txt")
        await s.run_turn("and now something else")
        loaded = s.store.load()
        archives = s.store.archives()
        s.close()
    assert loaded.boundaries == [] and archives == []
    said = [p.content for m in loaded.messages for p in m.parts if type(p).__name__ == "UserPromptPart"]
    assert said == ["hello there", "look at @notes.txt", "and now something else"]


async def test_the_sessions_list_counts_the_messages_not_the_lines(tmp_path):
    """The list said '15 entries' (a compaction's boundary and the session's notes among them) and
    /resume then said '(13 messages)'. It counts the messages of the conversation, those the
    compaction folded into its summary too (`/resume` says both: '8 messages, compacted to 4')."""
    from compact_agent.ui.sessions_list import first_prompt

    with FakeOpenAIServer(parser_talk) as server:
        s = session(tmp_path, server)
        for i in range(3):
            await s.run_turn(f"question {i} about the parser")
        await s.compact("")
        await s.run_turn("one more")
        loaded = s.store.load()
        kinds = [json.loads(line)["kind"] for line in s.store.path.read_text().splitlines()]
        s.close()
    prompt, count = first_prompt(s.store.path)
    assert kinds.count("boundary") == 1 and kinds.count("message") == len(loaded.messages)  # the boundary is none
    assert count == 8 > len(loaded.messages) and prompt == "question 0 about the parser"  # 4 questions, 4 answers
