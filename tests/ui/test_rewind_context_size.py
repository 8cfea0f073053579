"""After `/rewind` the context size is the conversation's as it is now, as after a `/compact`: the
figure the provider reported before the rewind is not taken for it (the toolbar and /status showed
6,131 where the next request proved 2,041)."""

from __future__ import annotations

from compact_agent.agent.accounting.context_report import picture
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_commands_terminal import session


async def test_the_size_after_a_rewind_is_of_the_kept_conversation(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("word " * 800)) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("turn a")
            await s.run_turn("turn b")
            assert picture(s).anchored
            s.rewind(1)
            after = picture(s)
            assert not after.anchored  # no pre-rewind report stands for it
            await s.run_turn("turn b again")
            sent = s.messages[-1].usage.input_tokens  # what the next request proved
            assert abs(after.used - sent) < 0.1 * sent, (after.used, sent)
            assert picture(s).anchored  # the next request's own report anchors it again
        finally:
            s.close()
