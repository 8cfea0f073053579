"""An MCP server's text reaches the model as a terminal leaves it, as the bash tool's output does
(mcp_results.py, with tools/screen.py's `Screen`): its escape sequences, 7-bit (`ESC ]`, `ESC [`)
and 8-bit (the C1 controls CSI, OSC, DCS and ST), are removed and a line says so. A result kept them
all, so a server could set the terminal's title, clear the screen or write the clipboard (OSC 52)
wherever its result was shown, and hand the model text that reads differently on a screen."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

#: A title (OSC, BEL-ended), a screen cleared (8-bit CSI), a clipboard write (8-bit OSC 52, ST-ended).
CONTROLLED = "\x1b]0;TITLE\x07ok \x9b2J\u009d52;c;eA==\u009cdone"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
NOTE = "[output as a terminal leaves it: 3 escape sequences removed]"

CONTENT = {
    "text": [{"type": "text", "text": CONTROLLED}],
    "image": [{"type": "text", "text": CONTROLLED}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
    "data": [{"type": "text", "text": json.dumps({"status": CONTROLLED, "n": 1})}],
    "nul": [{"type": "text", "text": "a\x00\x1b]0;TITLE\x07b"}],
    "fail": [{"type": "text", "text": CONTROLLED}],
    "plain": [{"type": "text", "text": "line 1\r\nline 2 ü"}],
}


def calling(*tools: str) -> Callable[[ChatRequest], Reply]:
    """A model that calls each of `tools` (one a turn, in order) and answers once it has its result."""
    todo = list(tools)

    def model(req: ChatRequest) -> Reply:
        return Reply.text("done") if tool_results(req) else Reply.tools([(todo.pop(0), {})])
    return model


async def results(tmp_path: Path, *tools: str, **settings: Any) -> tuple[list[str], FakeOpenAIServer]:
    """What the model got of each of the server's `tools`, called in turn, and the fake provider."""
    script = Path(__file__).with_name("mcp_script_server.py")  # its `given` mode: the tools of CONTENT
    cwd = tmp_path / "project"
    cwd.mkdir()
    config = Settings(memory_enabled=False, **settings, mcp_servers={
        "c": {"command": sys.executable, "args": [str(script), "given", json.dumps(CONTENT)]}})
    with FakeOpenAIServer(calling(*(f"c_{t}" for t in tools))) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="sk-test-k",
                                        context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                        settings=config))
        try:
            for n in range(len(tools)):
                assert (await s.run_turn(f"turn {n}")).output == "done"
        finally:
            await s.aclose()
    return [message_text(tool_results(r)[0]) for r in server.requests if tool_results(r)], server


def controls(text: str) -> list[str]:
    """The escape and C1 control characters in `text`."""
    return [c for c in text if c == "\x1b" or c == "\x07" or "\x80" <= c <= "\x9f"]


async def test_a_servers_text_reaches_the_model_without_escape_sequences_and_says_so(tmp_path: Path) -> None:
    [text], server = await results(tmp_path, "text")
    assert text == f"{NOTE}\nok done", repr(text)
    body = json.dumps([r.body for r in server.requests], ensure_ascii=False)
    assert "TITLE" not in body and "eA==" not in body and "\\u001b" not in body and controls(body) == []
    assert "cat -v" not in text  # the advice for a command's output means nothing for a server's


async def test_the_text_beside_an_image_is_cleaned_and_the_image_sent_as_it_came(tmp_path: Path) -> None:
    [result], server = await results(tmp_path, "image", images=True)
    text = json.loads(result)[0]  # beside an image the tool message carries the items as a JSON list
    assert text == f"{NOTE}\nok done", repr(text)
    images = [p["image_url"]["url"] for m in server.requests[-1].messages if isinstance(m.get("content"), list)
              for p in m["content"] if isinstance(p, dict) and p.get("type") == "image_url"]
    assert images == [f"data:image/png;base64,{PNG}"]  # the file's bytes untouched


async def test_json_data_failures_and_a_nul_do_not_keep_them_either(tmp_path: Path) -> None:
    data, nul, fail = (await results(tmp_path, "data", "nul", "fail"))[0]
    assert data.startswith(NOTE + "\n") and json.loads(data.removeprefix(NOTE + "\n")) == {"status": "ok done", "n": 1}
    # a NUL would make the bash tool's reading give the rest as it came (binary output): not here
    assert nul.startswith("[output as a terminal leaves it: 1 escape sequence removed]\n") and "TITLE" not in nul, nul
    assert "ok done" in fail and NOTE in fail and "TITLE" not in fail and "eA==" not in fail, fail
    for text in (data, nul, fail):
        assert controls(text) == [], repr(text)


async def test_text_with_nothing_to_remove_is_as_it_came(tmp_path: Path) -> None:
    [text], _ = await results(tmp_path, "plain")
    assert text == "line 1\r\nline 2 ü", repr(text)
