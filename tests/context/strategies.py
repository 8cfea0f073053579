"""Hypothesis strategies for valid pydantic-ai histories, and helpers the layer tests share.

A generated history is what an agent run records: a system prompt and a first ask; turns of
user prompts (some only "ok"/"好的", some with an image, some with a repeated reminder), each
followed by rounds of responses with tool calls (parallel ones too, with thinking and text) and
the request carrying their results (empty, small, big, failed, identical re-reads of one file),
closed by a text response. Timestamps increase. Every history is a fixed point of
`repair_messages`, so a layer's output can be held to the same standard.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.config import Settings
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.events import Budget

BASE = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
ACKS = ["ok", "okay", "好的", "继续", "thanks", "thank you", "go on", "yes", "OK!"]
ASKS = ["fix the failing test in src/app.py", "add a --verbose flag", "why is the build slow?",
        "把 README 翻译成中文", "refactor the parser", "run the tests"]
REMINDER = "<system-reminder>Run the tests before you finish.</system-reminder>"
PATHS = ["src/app.py", "src/parser.py", "README.md"]
PNG = BinaryContent(data=b"\x89PNG\r\n\x1a\n" + bytes(range(64)), media_type="image/png")

# Deterministic and quick: the same examples on every run, no deadline flakiness on slow CI.
PROPS = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def dump(messages: list[ModelMessage]) -> bytes:
    return ModelMessagesTypeAdapter.dump_json(messages)


def same_bytes(a: list[ModelMessage], b: list[ModelMessage]) -> bool:
    """`dump(a) == dump(b)`, cheaply: a list dumps as its messages' dumps joined, so compare per
    message and skip the pairs that are the very same object (most of a view is unchanged input)."""
    return len(a) == len(b) and all(x is y or dump([x]) == dump([y]) for x, y in zip(a, b, strict=True))


def file_text(path: str, version: int, lines: int) -> str:
    return "\n".join(f"{path} v{version} line {i}: value = {i * 7 % 13}" for i in range(lines))


def big_text(tag: str, chars: int) -> str:
    line = f"{tag}: lorem ipsum dolor sit amet 0123456789\n"
    return (line * (chars // len(line) + 1))[:chars]


def small_settings(**kw: Any) -> Settings:
    """Thresholds small enough that generated histories exercise every layer."""
    base: dict[str, Any] = dict(
        tool_result_max_chars=3_000, tool_results_per_message_chars=6_000, tool_result_preview_chars=400,
        microcompact_keep_recent=2, microcompact_trigger=4, microcompact_min_free_tokens=200,
    )
    base.update(kw)
    return Settings(**base)


def budget_for(messages: list[ModelMessage], now: datetime, threshold: int = 100_000,
               ttl: float = 3_600.0) -> Budget:
    return Budget(window=threshold * 2, threshold=threshold, tokens=tokens.estimate(messages), now=now,
                  collapse_commit=int(threshold * 0.9), collapse_blocking=int(threshold * 0.95),
                  cache_ttl_s=ttl)


@dataclass
class _Gen:
    draw: Any
    t: datetime = BASE
    n: int = 0
    responses: int = 0

    def tick(self) -> datetime:
        # Irregular but not drawn: every draw costs generation time and the gaps never matter.
        self.t += timedelta(seconds=1 + (self.n * 37 + len(str(self.t))) % 90)
        return self.t

    def call_id(self) -> str:
        self.n += 1
        return f"call_{self.n}"


def _tool_call(g: _Gen) -> tuple[ToolCallPart, Any, str]:
    """A call and the (content, outcome) of its result."""
    draw = g.draw
    kind = draw(st.sampled_from(["read", "read", "bash", "grep", "write", "edit", "todo", "shot"]))
    cid = g.call_id()
    if kind == "read":
        path = draw(st.sampled_from(PATHS))
        version = draw(st.sampled_from([0, 0, 0, 1]))
        args: dict[str, Any] = {"path": path}
        return ToolCallPart("read_file", json.dumps(args), cid), file_text(path, version, 40), "success"
    if kind in ("bash", "grep"):
        size = draw(st.sampled_from(["empty", "empty", "small", "small", "big", "huge", "fail"]))
        name = "bash" if kind == "bash" else "grep"
        args = {"command": "pytest -q"} if kind == "bash" else {"pattern": "TODO", "path": "src"}
        content = {"empty": "", "small": "3 passed in 0.1s\n", "big": big_text(name, 2_500),
                   "huge": big_text(name, draw(st.integers(3_001, 9_000))), "fail": "Traceback: boom\nValueError"}[size]
        return ToolCallPart(name, args, cid), content, "failed" if size == "fail" else "success"
    if kind == "write":
        path = draw(st.sampled_from(PATHS))
        return ToolCallPart("write_file", {"path": path, "content": file_text(path, 2, 10)}, cid), "", "success"
    if kind == "edit":
        return ToolCallPart("edit_file", {"path": PATHS[0], "old": "a", "new": "b"}, cid), "Edited 1 line.", "success"
    if kind == "shot":
        return ToolCallPart("screenshot", {}, cid), [PNG, "screen 800x600"], "success"
    return ToolCallPart("todo", {"items": ["a", "b"]}, cid), "Todos updated.", "success"


def _tool_round(g: _Gen) -> tuple[ModelResponse, ModelRequest]:
    draw = g.draw
    calls = [_tool_call(g) for _ in range(draw(st.integers(1, 3)))]
    parts: list[Any] = []
    if draw(st.booleans()):
        parts.append(ThinkingPart("Let me look at the code first.", signature="sig"))
    if draw(st.booleans()):
        parts.append(TextPart("Checking."))
    parts += [c for c, _, _ in calls]
    g.responses += 1
    resp = ModelResponse(parts=parts, timestamp=g.tick(), model_name="test-model", provider_name="test",
                         provider_response_id=f"resp_{g.responses}")
    t = g.tick()
    returns = [ToolReturnPart(c.tool_name, content, c.tool_call_id, timestamp=t, outcome=outcome)
               for c, content, outcome in calls]
    return resp, ModelRequest(parts=returns, timestamp=t)


def _final(g: _Gen) -> ModelResponse:
    parts: list[Any] = []
    if g.draw(st.booleans()):
        parts.append(ThinkingPart("Done, summarising.", signature="sig"))
    parts.append(TextPart(g.draw(st.sampled_from(["Done.", "All tests pass now.", "Shall I continue?", "好了。"]))))
    g.responses += 1
    return ModelResponse(parts=parts, timestamp=g.tick(), model_name="test-model", provider_name="test",
                         provider_response_id=f"resp_{g.responses}")


def _user_request(g: _Gen, first: bool) -> ModelRequest:
    draw = g.draw
    t = g.tick()
    parts: list[Any] = []
    if first:
        parts.append(SystemPromptPart("You are a careful coding agent.", timestamp=t))
    if not first and draw(st.integers(0, 3)) == 0:
        parts.append(UserPromptPart(REMINDER, timestamp=t))
    style = draw(st.sampled_from(["ask", "ack", "ack", "image"])) if not first else "ask"
    if style == "ack":
        parts.append(UserPromptPart(draw(st.sampled_from(ACKS)), timestamp=t))
    elif style == "image":
        parts.append(UserPromptPart(["what is wrong in this screenshot?", PNG], timestamp=t))
    else:
        parts.append(UserPromptPart(draw(st.sampled_from(ASKS)), timestamp=t))
    return ModelRequest(parts=parts, timestamp=t)


@st.composite
def histories(draw: Any, min_turns: int = 1, max_turns: int = 6, max_rounds: int = 4) -> list[ModelMessage]:
    """A valid conversation; it may end mid-turn (results not yet answered) or on a new prompt."""
    g = _Gen(draw)
    messages: list[ModelMessage] = []
    turns = draw(st.integers(min_turns, max_turns))
    ending = draw(st.sampled_from(["done", "done", "prompt", "tools"]))
    for turn in range(turns):
        messages.append(_user_request(g, first=turn == 0))
        rounds = draw(st.integers(0, max_rounds))
        for _ in range(rounds):
            messages.extend(_tool_round(g))
        if turn == turns - 1 and ending == "tools" and rounds:
            return messages
        messages.append(_final(g))
    if ending == "prompt":
        messages.append(_user_request(g, first=False))
    return messages


def last_time(messages: list[ModelMessage]) -> datetime:
    return max(m.timestamp for m in messages if m.timestamp is not None)


class Conv:
    """A hand-written conversation for unit tests: `Conv().user("hi").call("bash", {...}, "out").say("done")`."""

    def __init__(self, start: datetime = BASE, system: str | None = "You are a careful coding agent.") -> None:
        self.t = start
        self.n = 0
        self.messages: list[ModelMessage] = []
        self.system = system

    def tick(self, seconds: float = 10) -> datetime:
        self.t += timedelta(seconds=seconds)
        return self.t

    def user(self, *content: Any) -> Conv:
        t = self.tick()
        parts: list[Any] = []
        if not self.messages and self.system:
            parts.append(SystemPromptPart(self.system, timestamp=t))
        for c in content:
            parts.append(c if not isinstance(c, str | list) else UserPromptPart(c, timestamp=t))
        self.messages.append(ModelRequest(parts=parts, timestamp=t))
        return self

    def calls(self, *calls: tuple[str, Any, Any], text: str | None = None, thinking: bool = False,
              outcome: str = "success", extra: list[Any] | None = None) -> Conv:
        """One response with these (parallel) calls, then the request with their results."""
        parts: list[Any] = [ThinkingPart("thinking", signature="sig")] if thinking else []
        parts += [TextPart(text)] if text else []
        ids = []
        for name, args, _ in calls:
            self.n += 1
            ids.append(f"call_{self.n}")
            parts.append(ToolCallPart(name, args, ids[-1]))
        self.messages.append(ModelResponse(parts=parts, timestamp=self.tick(), model_name="m",
                                           provider_name="p", provider_response_id=f"r{len(self.messages)}"))
        t = self.tick()
        returns: list[Any] = [ToolReturnPart(name, result, i, timestamp=t, outcome=outcome)  # type: ignore[arg-type]
                              for (name, _, result), i in zip(calls, ids, strict=True)]
        self.messages.append(ModelRequest(parts=returns + (extra or []), timestamp=t))
        return self

    def call(self, name: str, args: Any, result: Any, **kw: Any) -> Conv:
        return self.calls((name, args, result), **kw)

    def say(self, text: str, thinking: bool = False) -> Conv:
        parts: list[Any] = [ThinkingPart("thinking", signature="sig")] if thinking else []
        self.messages.append(ModelResponse(parts=[*parts, TextPart(text)], timestamp=self.tick(), model_name="m",
                                           provider_name="p", provider_response_id=f"r{len(self.messages)}"))
        return self

    @property
    def ids(self) -> list[str]:
        return [f"call_{i}" for i in range(1, self.n + 1)]
