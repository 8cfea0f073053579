"""Cline's deterministic compaction (the SDK's "basic" strategy), replayed.

Source: `cline/cline`, sdk/packages/core/src/extensions/context/ (compaction.ts, basic-compaction.ts,
compaction-shared.ts); the CLI offers it as `--compaction basic` ("Truncation"), runs it without a
flag when the provider refuses a request as too long, and falls back to it when an LLM summary fails.
No model is asked: the new history is rebuilt from what the old one holds.

When (compaction.ts, before every model request): the estimated request reaches
COMPACTION_TRIGGER_RATIO = 0.9 of the usable input, which for a model that reports only its context
window is CONTEXT_WINDOW_INPUT_RATIO = 0.9 of it (compaction-shared.ts `resolveEffectiveMaxInputTokens`):
0.81 of the window. The messages must then shrink to a target (compaction.ts
`resolveAutoRequestTargetTokens`): half the usable input (LONG_CONVERSATION_TARGET_RATIO 0.5) once the
conversation has 5 user/assistant exchanges and the model's output limit is below its input limit,
else DEFAULT_TARGET_RATIO 0.7 of the trigger; the request overhead (system prompt, tools) comes off.

What is kept (basic-compaction.ts `runBasicCompaction`):
1. every message a person typed, always (here: `retention.typed_texts` with the transcript's harness
   texts, so hook context and command echoes do not count as typed);
2. messages an earlier compaction kept, frozen: never folded again;
3. of the latest turn, the newest messages that fit the target after 1-2, starting at a response so
   no call loses its result;
4. of each older turn, newest first, its concluding answer (the last response without tool calls,
   thinking dropped) when it fits;
5. everything else is dropped and described in a notice attached to the typed message it followed
   (`mergeAdjacentUserTurns`): the files read, the files edited and the commands run in the dropped
   span (compaction-shared.ts `summarizeToolActivity`, commands cut to COMMAND_SUMMARY_CHAR_LIMIT =
   100 characters), plus any of the conversation's PRESERVED_ASSISTANT_TEXT_COUNT = 3 newest answers
   that fell in it. Typed messages left adjacent are merged into one user message.
The projection then (budget-projection/project.ts, policy `basic_compaction_projection`) drops
thinking and, if what is kept still passes the larger of the target and the selection's size, capped
at the messages' trigger (the request trigger less the overhead), cuts texts newest first (never the
latest typed message's) to target x chars per token / messages kept characters each, then drops
messages oldest first with their tool pairs (never the first or latest typed message).

Three consequences of the source that show in the figures. Frozen survivors count against the target,
so once a compaction's kept tail fills it, a later compaction in the same turn keeps none of the newer
messages, and they are described only when a typed message precedes them directly. The latest typed
message is never cut: on a long turn each compaction adds its notice to it, every request compacts,
and it is cut only once a newer typed message arrives (so a request can pass the window, counted as
over, as Cline's would be refused). And the target is the request's: where the system prompt and
tools take most of a small window (Claude Code's ~26K at a 32K window) the messages' trigger is 1
token, so all but the first and latest typed messages go and older texts keep 16 characters.

Not the "newest 20K tokens + typed messages + files section" of Cline's default *agentic* strategy
(DEFAULT_PRESERVE_RECENT_TOKENS, a `## Files` section), which asks a model for a summary: the
deterministic one keeps as much of the latest turn as the target allows (~0.45 of the window) and
describes dropped work per gap. We replay the deterministic one.

Adaptations: Cline recognises its own tools (`read_files`, `editor`, `apply_patch`, `run_commands`);
the transcripts hold Claude Code's, Codex's and SWE-agent's, so reads, edits and commands are
recognised by those names too (`READ_TOOLS`, `retention.EDIT_TOOLS`, `COMMAND_TOOLS`), and edited
line ranges (read from Cline's own diff format) are not given. The projection's dropping of images
outside the latest typed message is not replayed, nor its protected tail (a call still unanswered,
never there at a request point); its typed messages are ours (`is_typed`). Cline's per-message
estimate is its own chars/4; sizes here are the replay's fitted ones, as for every rival. The
notice's wording is ours.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeGuard

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..context.compaction.cuts import join
from ..context.compaction.ledger import call_args
from ..context.plumbing import rounds, tokens
from .retention import _PATCH_FILE, EDIT_TOOLS, is_typed
from .rival import Base
from .simulate import Sim, Step

CONTEXT_WINDOW_INPUT_RATIO = 0.9  # compaction-shared.ts: usable input when only a window is reported
COMPACTION_TRIGGER_RATIO = 0.9  # compaction-shared.ts: compact at this share of the usable input
DEFAULT_TARGET_RATIO = 0.7  # compaction-shared.ts: target = 0.7 x trigger (short conversations)
LONG_CONVERSATION_TARGET_RATIO = 0.5  # compaction.ts: target = 0.5 x usable input (>= 5 exchanges)
LONG_CONVERSATION_PAIRS = 5  # compaction.ts resolveAutoRequestTargetTokens: messagePairCount >= 5
PRESERVED_ASSISTANT_TEXT_COUNT = 3  # basic-compaction.ts
COMMAND_SUMMARY_CHAR_LIMIT = 100  # compaction-shared.ts
PATH_KEYS = ("path", "file_path", "target_file", "new_file_path", "old_file_path", "notebook_path")  # collectPaths + ours
READ_TOOLS = frozenset({"read_files", "read", "read_file", "view", "notebookread"})
COMMAND_TOOLS = frozenset({"run_commands", "bash", "shell", "exec_command", "local_shell", "execute_command"})
NOTICE_START, NOTICE_END = "<SYSTEM_NOTICE>", "</SYSTEM_NOTICE>"


def _paths(args: object) -> list[str]:
    if isinstance(args, str):
        return [f.strip() for f in _PATCH_FILE.findall(args)]
    if not isinstance(args, dict):
        return []
    out = [v.strip() for k in PATH_KEYS if isinstance(v := args.get(k), str) and v.strip()]
    for key in ("files", "file_paths"):
        for item in args.get(key) or []:
            v = item.get("path") if isinstance(item, dict) else item
            if isinstance(v, str) and v.strip():
                out.append(v.strip())
    for v in args.values():
        if isinstance(v, str):
            out += [f.strip() for f in _PATCH_FILE.findall(v)]
    return out


def _commands(args: object) -> list[str]:
    if not isinstance(args, dict):
        return []
    raw = args.get("commands", args.get("command", args.get("cmd")))
    items: list[object] = [raw]
    if isinstance(raw, list):
        several = "commands" in args and all(isinstance(c, str) for c in raw)
        # else the argv form (Codex's shell: ["bash", "-lc", "..."]): one command
        items = list(raw) if several else [" ".join(str(c) for c in raw)]
    out = []
    for c in items:
        if isinstance(c, str) and c.strip():
            c = c.strip()
            out.append(c if len(c) <= COMMAND_SUMMARY_CHAR_LIMIT else c[:COMMAND_SUMMARY_CHAR_LIMIT] + "...")
    return out


def tool_activity(messages: Sequence[ModelMessage]) -> tuple[list[str], list[str], list[str]]:
    """(files read, files edited, commands run) by the calls in `messages`, first first, no repeats."""
    read: list[str] = []
    edited: list[str] = []
    commands: list[str] = []
    for m in messages:
        if not isinstance(m, ModelResponse):
            continue
        for p in m.parts:
            if not isinstance(p, ToolCallPart):
                continue
            name, args = p.tool_name.lower(), call_args(p)
            if name == "str_replace_editor" and isinstance(args, dict) and args.get("command") == "view":
                target = read
            elif name in EDIT_TOOLS or name == "editor":
                target = edited
            elif name in READ_TOOLS:
                target = read
            elif name in COMMAND_TOOLS:
                commands += [c for c in _commands(args) if c not in commands]
                continue
            else:
                continue
            target += [f for f in dict.fromkeys(_paths(args)) if f not in target]
    return read, edited, commands


def _answer_text(m: ModelMessage) -> str:
    if not isinstance(m, ModelResponse):
        return ""
    return "\n".join(p.content.strip() for p in m.parts if isinstance(p, TextPart) and p.content.strip())


def notice(dropped: Sequence[ModelMessage], answers: Sequence[str]) -> str | None:
    """What the model did in a dropped span, as Cline attaches it (our wording), or None if nothing."""
    read, edited, commands = tool_activity(dropped)
    if not (read or edited or commands or answers):
        return None
    body = (f"Files read:\n{chr(10).join(read)}\n\nFiles edited:\n{chr(10).join(edited)}\n\n"
            f"Commands run:\n{chr(10).join(commands)}")
    if answers:
        body += "\n\nYour latest answers:\n" + "\n---\n".join(answers)
    return f"{NOTICE_START}\nOlder context was compacted. What you did after the request above:\n{body}{NOTICE_END}"


def _without_thinking(m: ModelMessage) -> ModelMessage | None:
    if not isinstance(m, ModelResponse) or not any(isinstance(p, ThinkingPart) for p in m.parts):
        return m
    parts = [p for p in m.parts if not isinstance(p, ThinkingPart)]
    return dataclasses.replace(m, parts=parts) if parts else None


def _has_text(m: ModelMessage) -> bool:
    """project.ts `hasTruncatableText`: text, file or tool-result content (a call's arguments are not)."""
    return any(isinstance(p, (TextPart, UserPromptPart, ToolReturnPart)) for p in m.parts)


def _cut(text: str, limit: int) -> str:
    """project.ts `truncateText`: the head of `text` within `limit` characters, marked."""
    if len(text) <= limit or limit <= 16:
        return text[:max(0, limit)]
    keep = max(1, limit - len(f"\n...[truncated {len(text) - limit} chars]"))
    return f"{text[:keep]}\n...[truncated {len(text) - keep} chars]"


def _cut_text(m: ModelMessage, limit: int) -> ModelMessage:
    """project.ts `truncateMessageText`: the message's texts in order share `limit` characters; the
    first keep their head, those past the budget are emptied (left in place, as Cline leaves them)."""
    left, parts = limit, list[Any](m.parts)
    for k, p in enumerate(parts):
        if isinstance(p, (TextPart, UserPromptPart)) and isinstance(p.content, str):
            parts[k] = dataclasses.replace(p, content=(text := _cut(p.content, left)))
        elif isinstance(p, ToolReturnPart) and isinstance(p.content, list):  # its texts; media left as they are
            texts: list[object] = []
            for c in p.content:
                texts.append(c if not isinstance(c, str) else (c := _cut(c, left)))
                left -= len(c) if isinstance(c, str) else 0
            parts[k], text = dataclasses.replace(parts[k], content=texts), ""
        elif isinstance(p, ToolReturnPart):
            raw = p.content if isinstance(p.content, str) else p.model_response_str()
            parts[k] = dataclasses.replace(parts[k], content=(text := _cut(raw, left)))
        else:
            continue
        left -= len(text)
    return dataclasses.replace(m, parts=parts)  # type: ignore[arg-type]


def _tool_pair(kept: dict[int, ModelMessage], start: int) -> set[int]:
    """project.ts `collectMessageClosure`: the message and those sharing a tool call id with it, transitively."""
    ids_of = {i: {p.tool_call_id for p in m.parts if isinstance(p, (ToolCallPart, ToolReturnPart))}
              for i, m in kept.items()}
    found, queue = {start}, [start]
    while queue:
        ids = ids_of[queue.pop()]
        queue += [j for j, other in ids_of.items() if j not in found and ids & other]
        found.update(queue)
    return found


class Cline(Base):
    """Cline's basic compaction: typed messages, frozen survivors, the latest turn's tail (module docstring)."""

    name = "cline"

    def __init__(self, sim: Sim) -> None:
        super().__init__(sim)
        self.max_input = CONTEXT_WINDOW_INPUT_RATIO * sim.window
        self.trigger = COMPACTION_TRIGGER_RATIO * self.max_input
        self.frozen: set[int] = set()  # ids of the non-typed messages the last compaction kept

    def typed_part(self, p: object) -> TypeGuard[UserPromptPart]:
        return isinstance(p, UserPromptPart) and isinstance(p.content, str) and is_typed(p.content, self.harness)

    def is_typed_message(self, m: ModelMessage) -> TypeGuard[ModelRequest]:
        return isinstance(m, ModelRequest) and any(self.typed_part(p) for p in m.parts)

    def target(self, history: list[ModelMessage]) -> int:
        pairs = sum(1 for a, b in zip(history, history[1:], strict=False)
                    if isinstance(a, ModelRequest) and isinstance(b, ModelResponse))
        if pairs >= LONG_CONVERSATION_PAIRS and self.sim.max_output < self.max_input:
            request = int(self.max_input * LONG_CONVERSATION_TARGET_RATIO)
        else:
            request = int(self.trigger * DEFAULT_TARGET_RATIO)
        request = min(request, int(self.trigger) - 1)
        return max(1, min(request, int(self.trigger)) - self.sim.tm.overhead)

    def compact(self, history: list[ModelMessage], target: int) -> list[ModelMessage] | None:
        """The new history (runBasicCompaction), or None when there is nothing typed to keep."""
        size = self.sim.tm.of
        typed_messages = {i: m for i, m in enumerate(history) if self.is_typed_message(m)}
        typed = list(typed_messages)
        if not typed:
            return None
        kept: dict[int, ModelMessage] = {}
        for i, request in typed_messages.items():
            parts = [p for p in request.parts if self.typed_part(p)]
            kept[i] = (request if len(parts) == len(request.parts)
                       else ModelRequest(parts=parts, timestamp=request.timestamp))
        total = sum(size([m]) for m in kept.values())
        frozen = {i for i, m in enumerate(history) if i not in kept and id(m) in self.frozen}
        total += sum(size([history[i]]) for i in frozen)
        latest = typed[-1]
        start, acc = len(history), 0
        for i in range(len(history) - 1, latest, -1):
            if i in frozen:
                break
            cost = size([history[i]])
            if total + acc + cost > target:
                break
            acc += cost
            start = i
        while start < len(history) and not isinstance(history[start], ModelResponse):
            start += 1
        for i in range(start, len(history)):
            kept[i] = history[i]
            total += size([history[i]])
        for b in range(len(typed) - 2, -1, -1):  # older turns: their concluding answer, newest first
            for i in range(typed[b + 1] - 1, typed[b], -1):
                m = history[i]
                if i in frozen:
                    break
                if not isinstance(m, ModelResponse) or any(isinstance(p, ToolCallPart) for p in m.parts):
                    continue
                answer = _without_thinking(m)
                if answer is not None and _answer_text(answer):
                    cost = size([answer])
                    if total + cost <= target:
                        kept[i] = answer
                        total += cost
                break
        for i in frozen:
            kept[i] = history[i]
        # the projection's target: what was kept, at least the target, at most the messages' trigger
        # (basic-compaction.ts projectionTargetTokens; compaction.ts translateRequestBudgetToMessages)
        ceiling = max(1, int(self.trigger - self.sim.tm.overhead))
        return self.merge(history, self.projected(kept, min(max(target, total), ceiling)))

    def projected(self, kept: dict[int, ModelMessage], target: int) -> dict[int, ModelMessage]:
        """budget-projection/project.ts `buildBudgetProjection`: thinking dropped; while over `target`, texts
        cut newest first (not the latest typed), then messages dropped oldest first (module docstring)."""
        size = self.sim.tm.of
        out = {i: lean for i, m in sorted(kept.items()) if (lean := _without_thinking(m)) is not None}
        total = sum(size([m]) for m in out.values())
        typed = [i for i, m in out.items() if self.is_typed_message(m)]
        pinned = {typed[0], typed[-1]} if typed else set()
        for i in sorted(out, reverse=True):
            m = out[i]
            if total <= target:
                break
            if typed and i == typed[-1] or not _has_text(m):
                continue
            per_token = max(1.0, tokens.CHARS_PER_TOKEN * tokens.estimate([m]) / max(1, size([m])))
            cut = _cut_text(m, max(16, int(target * per_token / len(out))))
            total += size([cut]) - size([m])
            out[i] = cut
        for i in list(out):
            if total <= target:
                break
            pair = _tool_pair(out, i)
            if pair & pinned:
                continue
            total -= sum(size([out.pop(j)]) for j in pair)
        return out

    def merge(self, history: list[ModelMessage], kept: dict[int, ModelMessage]) -> list[ModelMessage]:
        """Survivors in order; each dropped span described on the typed message before it (merged runs)."""
        answers_at: list[int] = []
        for i in range(len(history) - 1, -1, -1):
            if len(answers_at) == PRESERVED_ASSISTANT_TEXT_COUNT:
                break
            if _answer_text(history[i]):
                answers_at.append(i)

        def described(a: int, b: int) -> str | None:
            return notice(history[a:b], [_answer_text(history[i]) for i in sorted(answers_at) if a <= i < b])

        order = sorted(kept)
        out: list[tuple[int, ModelMessage]] = []  # (last original index, message)
        for k, i in enumerate(order):
            m = kept[i]
            nxt = order[k + 1] if k + 1 < len(order) else len(history)
            if self.is_typed_message(history[i]) and isinstance(m, ModelRequest):  # its typed parts, kept
                parts = list(m.parts)
                if nxt > i + 1 and (text := described(i + 1, nxt)):  # dated as the typed text: deterministic
                    typed_at = [p.timestamp for p in m.parts if isinstance(p, UserPromptPart)][-1]
                    parts.append(UserPromptPart(text, timestamp=typed_at))
                prev_i, prev = out[-1] if out else (-1, None)
                if isinstance(prev, ModelRequest) and self.is_typed_message(history[prev_i]):
                    out[-1] = (i, ModelRequest(parts=[*prev.parts, *parts], timestamp=prev.timestamp))
                    continue
                if len(parts) != len(m.parts):
                    m = ModelRequest(parts=parts, timestamp=m.timestamp)
            else:
                lean = _without_thinking(m)
                if lean is None:
                    continue
                m = lean
            out.append((i, m))
        new = join([m for _, m in out])
        return self.paired(new)

    @staticmethod
    def paired(messages: list[ModelMessage]) -> list[ModelMessage]:
        """Drop any call left without its result or result without its call (never expected; a guard)."""
        calls, results = rounds.unpaired(messages)
        if not calls and not results:
            return messages
        out: list[ModelMessage] = []
        for m in messages:
            kept: ModelMessage
            if isinstance(m, ModelRequest):
                kept = dataclasses.replace(m, parts=[
                    p for p in m.parts if not (isinstance(p, ToolReturnPart) and p.tool_call_id in results)])
            else:
                kept = dataclasses.replace(m, parts=[
                    p for p in m.parts if not (isinstance(p, ToolCallPart) and p.tool_call_id in calls)])
            if kept.parts:
                out.append(m if len(kept.parts) == len(m.parts) else kept)
        return join(out)

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        before = sim.tm.request(history)
        if before < self.trigger:
            return Step(list(history))
        new = self.compact(history, self.target(history))
        if new is None or new == history:  # nothing typed, or nothing to fold: Cline skips the compaction
            return Step(list(history))
        history[:] = new
        self.frozen = {id(m) for m in new if not self.is_typed_message(m)}
        self.forget_usage()
        return Step(list(new), compacted=True, compaction_freed=before - sim.tm.request(new))
