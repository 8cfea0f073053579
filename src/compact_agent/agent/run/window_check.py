"""Refuse a context window too small for what every request carries.

The system prompt (with the instruction files) and the tool definitions are sent with every
request and no compaction can shrink them. A window that cannot hold them, the reply and a little
conversation fails on the first request with a provider error that no retry or `/compact` fixes;
better to say so at start, naming the smallest window that works.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai.toolsets import FunctionToolset

from ...config import Limits, Settings
from ...context.plumbing import tokens
from ...models import ModelInfo, UsageError, model_info

if TYPE_CHECKING:
    from .session_parts import SessionParts

#: Room for the conversation itself (the prompt, a tool call or two) beyond the fixed part, under
#: the auto-compact threshold. 1,024 makes the built-in tools' minimum 4,096, a window a server's
#: refusal can teach and the agent then works in (a survey of 24 reads with several compactions);
#: 3,072 does not hold one file read beside the fixed part and the reply's room.
MIN_WORKING_TOKENS = 1_024


def tool_definitions(session: SessionParts) -> list[Any]:
    return [t.tool_def for ts in session.agent.toolsets if isinstance(ts, FunctionToolset)
            for t in ts.tools.values()]


def fixed_tokens(session: SessionParts) -> int:
    """System prompt + tool schemas, as the pipeline estimates them."""
    return tokens.request_overhead(session.system_prompt(), tool_definitions(session))


def _threshold(window: int, model_max_output: int, settings: Settings) -> int:
    # As `model_info` sizes the reply for an overridden window.
    return Limits.for_window(window, min(model_max_output, max(256, window // 4)), settings).threshold


def minimum_window(fixed: int, model_max_output: int, settings: Settings) -> int:
    """The smallest window (in steps of 1,024) whose auto-compact threshold leaves room to work."""
    window = 2_048
    while _threshold(window, model_max_output, settings) < fixed + MIN_WORKING_TOKENS:
        window += 1_024
    return window


def check_window(session: SessionParts, info: ModelInfo, setting: str = "--context-window") -> int:
    """Raise UsageError when `info.window` cannot hold the fixed part of every request; the message
    names `setting`, where the window was given (the flag, or `/model --window` for a switch). The
    minimum otherwise: a window learned under it is not one to advise giving at start."""
    window = info.window
    fixed = fixed_tokens(session)
    need = minimum_window(fixed, model_info(info.name, provider=info.provider).max_output, session.settings)
    if window < need:
        raise UsageError(f"a {window:,}-token context window cannot hold the system prompt and tool definitions "
                          f"(~{fixed:,} tokens) plus the reply and the conversation; the minimum is {need:,} "
                          f"({setting})")
    return need
