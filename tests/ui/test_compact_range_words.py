"""`/compact --from N` or `--up-to N` out of range says which numbers it takes; with one message
there is one, said as such: `--up-to takes only 1 here`, where it said `takes 1 to 1`."""

from __future__ import annotations

from compact_agent.ui.compact_command import out_of_range


def test_one_message_takes_only_one_number():
    assert out_of_range(99, "up_to", 1) == ("--up-to 99: no message to summarise on that side; --up-to takes only 1 "
                                            "here (/history numbers the messages)")
    assert out_of_range(5, "from", 1) == ("--from 5: no message to summarise on that side; --from takes only 0 here "
                                          "(/history numbers the messages)")
    assert out_of_range(9, "from", 4) is not None and "--from takes 0 to 3 here" in str(out_of_range(9, "from", 4))
    assert out_of_range(0, "from", 1) is None and out_of_range(1, "up_to", 1) is None


def test_the_last_answer_kept_is_no_number_from_takes():
    """`--from N` keeps the answer the conversation ends at: from its number there is nothing to
    summarise (it exited 1 as a failed compaction, where the number one higher was bad usage)."""
    assert out_of_range(3, "from", 4, answered=True) == (
        "--from 3: no message to summarise on that side but the last answer, which is kept; --from takes 0 to 2 "
        "here (/history numbers the messages)")
    assert out_of_range(2, "from", 4, answered=True) is None and out_of_range(3, "from", 4) is None
    assert "takes 0 to 2" in str(out_of_range(9, "from", 4, answered=True))


async def test_a_boundary_moved_to_keep_a_call_with_its_result_is_said(tmp_path):
    """`/compact --from 2 --preview` where message 2 is the result of the call in message 1: the
    compaction moves the boundary to 1, and the preview said 'the first message' without a word why."""
    import io

    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession
    from compact_agent.ui import render
    from compact_agent.ui.commands import dispatch
    from tests.e2e.scripted import is_summary_request
    from tests.fakes.openai_server import FakeOpenAIServer, Reply

    from .declining_repl import declining

    def answer(req):
        if is_summary_request(req):
            return Reply.text("<summary>Read the notes.</summary>")
        if req.messages[-1]["role"] == "tool" or "second" in req.last_user_text():
            return Reply.text("Done. " + "words " * 200)
        return Reply.tools([("read_file", {"path": "notes.txt"})])

    (tmp_path / "notes.txt").write_text("the plan\n" * 50)
    with FakeOpenAIServer(answer) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        home=tmp_path / "home", permission_mode="yes"))
        try:
            await s.run_turn("read the notes " + "please " * 100)
            await s.run_turn("second question " + "more " * 100)
            assert [m.kind for m in s.messages[:3]] == ["request", "response", "request"]  # 2: the read's result
            c = render.make_console()
            c.file, c.record = io.StringIO(), True
            with declining():  # a REPL that says no: print mode refuses --preview
                await dispatch(s, "/compact --from 2 --preview", c)
            said = " ".join(c.export_text().split())
            assert "--from 2 became --from 1: a tool call stays with its result" in said, said
        finally:
            s.close()
