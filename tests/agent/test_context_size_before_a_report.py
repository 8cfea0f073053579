"""/context, /status and /compact give one size of the context in use, before this run's first answer
as after it (run/in_use.py).

After an answer the figure is the provider's count of that request; before one, in a session
resumed after /compact (whose kept messages' reports counted the history it replaced), it is the
calibrated estimate. /compact's estimate left out the earlier turns' thinking the provider does not
count (`Calibration.thinking_counted`, learned and kept with the session), while /context and
/status summed their rows, which counted it: 'context 7,908 … estimated' where /compact began
from 7,283, and the provider's count after the next short turn was 7,425.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from compact_agent.agent.accounting.context_report import picture
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.declining_repl import declining

THINKING = "Let me weigh the options here carefully. " * 60  # sent back as reasoning_content, not counted


async def said(s: AgentSession, line: str) -> str:
    c = render.make_console()
    c.file, c.record = io.StringIO(), True
    await dispatch(s, line, c)
    return " ".join(c.export_text().split())


async def sizes(s: AgentSession) -> tuple[int, int, str, str]:
    """The size /status gives, the one /compact begins from (its preview, declined),
    /context's heading and /status's source."""
    status = await said(s, "/status")
    found = re.search(r"context ([\d,]+) / threshold [\d,]+ / window [\d,]+ tokens, (\S+)", status)
    assert found is not None, status
    with declining():  # its preview, declined, or its refusal, names the size it began from
        compact = await said(s, "/compact --preview")
    began = re.search(r"preview of /compact \(full\): ([\d,]+) →|as many as the ([\d,]+) in use now"
                      r"|free at most [\d,]+ of the ([\d,]+) tokens in use", compact)
    assert began is not None, compact
    heading = (await said(s, "/context")).split(";")[0]
    return int(found[1].replace(",", "")), int((began[1] or began[2] or began[3]).replace(",", "")), heading, found[2]


async def test_context_status_and_compact_agree_before_the_first_answer_as_after(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("Agreed. " * 50, reasoning_content=THINKING), window=32_000) as server:
        def session() -> AgentSession:
            return AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url,
                                               api_key="k", context_window=32_000, home=tmp_path / "home",
                                               continue_last=(tmp_path / "home").exists()))
        s = session()
        try:
            for i in range(6):
                await s.run_turn(f"point {i}: " + "words of the plan " * 150)
        finally:
            s.close()
        s = session()
        try:
            await s.compact()  # before this run's first answer: the kept tail holds earlier turns' thinking
        finally:
            s.close()
        s = session()
        try:
            assert s.cm.calibration.thinking_counted is False  # learned, and kept with the session
            status, compact, heading, source = await sizes(s)
            shown = picture(s)
            assert (source, shown.anchored) == ("estimated", False)
            assert status == compact == shown.used == s.context_tokens(), (status, compact, heading)
            assert heading.startswith(f"context {status / 1000:.1f}k / "), heading  # /context, in thousands
            await s.run_turn("and then")
            status, compact, heading, source = await sizes(s)
            shown = picture(s)
            assert (source, shown.anchored) == ("provider-reported", True)
            assert status == compact == shown.used == s.context_tokens()
            assert heading.startswith(f"context {status / 1000:.1f}k / "), heading
        finally:
            s.close()
