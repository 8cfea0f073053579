"""What a turn's request would carry besides the messages, known before this run sends one.

Every request carries the system prompt and the tools: the built-in ones, the plan's and the MCP
servers' (or `tool_search` in their place, tool_search.py). The manager learns them from each request
it prepares. A command that measures or sends a request before any turn of this run — `-p /compact`,
or /compact, /context and /status in a session just resumed — had only the built-in tools to go on:
MCP servers connect with the first turn, so /compact measured the context without their tools, and its
summary request, which shares the main request's prefix (summarizer.py), went out with no tools at all,
unlike the request before it: its sizes were not the next request's, and its prefix missed the cache.

`prepare` connects the servers as the first turn does (SessionStart hooks still run with that turn)
and gives the manager the parameters and the model settings such a turn's first request would send,
and the model it goes to; `tool_names` names those tools (`--output-format stream-json`'s `init` lists
them). The settings carry Anthropic's cache mark (request_settings.py): without them the summary request
of `-c` then /compact went out with no `cache_control`, and the next request found nothing cached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pydantic_ai import RunContext
from pydantic_ai.messages import InstructionPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.settings import ModelSettings, merge_model_settings
from pydantic_ai.usage import RunUsage

from ...context.plumbing import tokens
from .session_parts import SessionParts

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from .extensions import SessionExtensions


class Session(SessionParts, Protocol):
    """What `prepare` reads of the session (runner.py's `AgentSession`)."""

    @property
    def ext(self) -> SessionExtensions: ...
    @property
    def model(self) -> Model: ...


async def prepare(s: Session) -> None:
    """Connect the MCP servers and, before the run's first request, tell the manager what it will carry."""
    await s.ext.connect()
    if s.cm.run_model is None:  # the model this run's requests go to: a summary it refuses as too long
        s.cm.run_model = s.model  # names the run's window (compacting.py), another summary model's its own
    if s.cm.last_params is not None:  # a request of this run went out: the manager knows what it carried
        return
    params = await parameters(s)
    if s.cm.last_params is None:  # …nor meanwhile (the REPL prepares in the background: a turn may begin)
        s.cm.last_params, s.cm.last_settings = params, settings(s)
        s.cm.overhead = tokens.request_overhead(s.system_prompt(), params.function_tools)


def settings(s: Session) -> ModelSettings | None:
    """The model settings a turn's request carries: the model's own, then the agent's (a function of
    the run's context is left to the run, as is what a run adds)."""
    agent = s.agent.model_settings
    return merge_model_settings(s.model.settings, None if callable(agent) else agent)


async def parameters(s: Session) -> ModelRequestParameters:
    """The system prompt and the tool definitions as the agent's next request sends them: each toolset's
    tools prepared for this model (read_file's description follows whether it opens images; MCP tools
    give way to tool_search in a small window)."""
    ctx = RunContext(deps=None, model=s.model, usage=RunUsage(), agent=s.agent)
    defs = [tool.tool_def for toolset in s.agent.toolsets for tool in (await toolset.get_tools(ctx)).values()]
    return ModelRequestParameters(function_tools=defs,
                                  instruction_parts=[InstructionPart(s.system_prompt(), dynamic=True)])


async def tool_names(s: Session) -> list[str]:
    """The names of the tools the run's first request carries, the MCP servers' among them (or
    `tool_search` in their place): the servers connected for it, as `prepare` connects them. The
    manager's state is left as it is (a turn's request tells it)."""
    await s.ext.connect()
    params = s.cm.last_params if s.cm.last_params is not None else await parameters(s)
    return [t.name for t in params.function_tools]
