"""`OWN_TOOLS` (context/layers/previews.py) is the agent's toolset as a spilled result's preview
reads it: the analyzer's replay, whose requests list no tools, names in its previews the tools the
live agent's requests offer (lifecycle.agent_tools). A tool renamed, or a parameter of one, in the
agent's toolset and not there, and the replay's previews would send the model after tools or
arguments the agent does not have, and its figures would be of other previews than the agent's.
"""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.layers.previews import OWN_TOOLS, build_preview
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SHORT_LINES = "".join(f"line {i}: some output of the command\n" for i in range(2_000))
LONG_LINE = "x" * 50_000 + "\n" + "y" * 10


async def test_the_tools_a_replayed_preview_names_are_those_the_agent_offers(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("Nothing to do.")) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, home=tmp_path / "home"))
        try:
            await s.run_turn("hello")
            live = next(layer.tools for layer in s.cm.layers or () if isinstance(layer, ToolResultBudget))
        finally:
            s.close()
    sent = {t["function"]["name"]: frozenset(t["function"]["parameters"].get("properties") or ())
            for t in server.requests[0].tools}
    assert dict(live) == sent  # what the live previews go by is what the request offered
    # Every tool OWN_TOOLS names is one the agent registers, with these very parameters…
    assert {name: sent.get(name) for name in OWN_TOOLS} == dict(OWN_TOOLS)
    # …and none a preview would name is left out of it: the replay's previews are the agent's.
    spill = Path("/tmp/session/spills/call_1.txt")
    for text in (SHORT_LINES, LONG_LINE):
        assert build_preview(text, 400, spill, tools=OWN_TOOLS) == build_preview(text, 400, spill, tools=sent)
