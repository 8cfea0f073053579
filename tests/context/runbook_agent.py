"""An agent that reads a runbook's pages (`read`, ~2,000 words a page) and deploys (`deploy`, a tool
that needs a person's approval), so that its run ends waiting on the deploy call, for the tests of
compacting a history that waits on a call."""

from __future__ import annotations

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.models import Model

from compact_agent.context import ContextManager


def runbook_agent(model: Model, cm: ContextManager) -> Agent[None, str | DeferredToolRequests]:
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        model, output_type=[str, DeferredToolRequests], capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        return f"page {page}: " + "word " * 2_000

    @agent.tool_plain(requires_approval=True)
    def deploy(target: str) -> str:
        return f"{target} is live"

    return agent
