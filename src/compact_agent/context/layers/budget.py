"""Layer 1: the tool-result budget. Huge tool outputs go to disk; the view keeps a preview.

One `cat` of a log or a recursive `grep` can return more text than the rest of the conversation.
The model rarely needs all of it at once, and it can page through a file with `read_file`, so a
result over `tool_result_max_chars` is spilled to `spill_dir/<tool_call_id>.txt` and replaced by
its head and tail plus a line saying where the rest is: from which line, and how many lines one read
of it may ask for (the file a read read, when the agent can read it again: rereads.py). A request whose fresh results together
exceed `tool_results_per_message_chars` spills its largest fresh results first until it fits.
Both limits also scale with the room the window leaves the conversation (threshold minus system
prompt and tools): one result may take a quarter of it, one request's fresh results half, so a
single round can never fill a small window, and the next request always fits. A result carrying
files (an image) beside its text is held to the same limits by its text (`measured_text`): that
text is spilled and previewed, and the preview is shown followed by the files, kept as they were.

The arguments of a tool call that has run (a `write_file` of a megabyte) are the same problem in
the model's own messages: long string arguments of answered calls are cut in the view to the same
per-result limit, head and tail kept, with a note that the full text was written.

Why "fresh": a result the model has already seen in full is in the provider's prompt cache.
Replacing it later would rewrite that cached prefix for a one-off saving, so a result seen and
kept stays kept, and a result replaced once gets the identical preview on every later request,
from the in-memory cache, without touching the disk again.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..plumbing import secrets, tokens
from ..plumbing.events import Budget, Event, LayerResult, Stopwatch
from ..plumbing.file_changes import changed_files
from ..plumbing.markers import mark
from ..plumbing.settings import CompactionSettings as Settings
from ..plumbing.tool_content import content_text, keyed_parts, with_text
from .previews import Tools, build_preview, cut_args, measured_text
from .rereads import Reads, source_of
from .spills import SpillFiles

LAYER = "budget"
SHORT_PREVIEW_CHARS = 400  # the last resort's preview, when even full previews leave a request too big


def text_of_part(part: ToolReturnPart | UserPromptPart) -> str | None:
    """What layer 1 measures of a result (`measured_text`) or of a tool's content beside it (its text
    under its fence line: tool_content.py): it is held to the same limits, spilled and previewed alike."""
    return measured_text(part) if isinstance(part, ToolReturnPart) else content_text(part)


def measured(messages: list[ModelMessage]) -> list[tuple[int, int, str, ToolReturnPart | UserPromptPart, str]]:
    """Every result and tool's content in `messages` with text: (message, place, key, part, text)."""
    return [(i, j, key, p, text) for i, m in enumerate(messages) if isinstance(m, ModelRequest)
            for j, key, p in keyed_parts(m.parts) if (text := text_of_part(p)) is not None]


class ToolResultBudget(SpillFiles):
    """L1: cap single tool results and the fresh results of one request, spilling to disk.

    State: `seen` (ids already judged, kept or replaced) and `replacements` (id -> the exact
    preview text). Both survive `state_to_json`/`load_state`, so a restarted session sends the
    same bytes for the same history. The spill files are spills.py's (`SpillFiles`).
    """

    name = LAYER

    def __init__(self, settings: Settings, spill_dir: Path | None, tools: Tools | None = None) -> None:
        self.settings = settings
        super().__init__(spill_dir)
        self.seen: set[str] = set()
        self.replacements: dict[str, str] = {}
        self.actions: dict[str, dict[str, Any]] = {}  # id -> marker info, frozen with the preview
        self.args_cut: dict[str, dict[str, Any]] = {}  # call id -> the arguments as shown
        self.args_kept: set[str] = set()  # call ids judged small enough
        # The agent's tools as the latest request listed them (lifecycle.agent_tools): a preview's
        # note names only these. Unknown (a history compacted before any run), it names those given
        # (`tools`: the replay's, whose requests list none), or none.
        self.tools: Tools = tools if tools is not None else {}
        # The characters one result may take, as the latest request's room gave it (`limits`): a
        # preview's note proposes reads that fit it, the last resort's too (`shrink` has no budget).
        self.room = settings.tool_result_max_chars

    # -- state ---------------------------------------------------------------------------------
    def state_to_json(self) -> dict[str, Any]:
        return {
            "seen": sorted(self.seen),
            "replacements": dict(sorted(self.replacements.items())),
            "actions": dict(sorted(self.actions.items())),
            "args_cut": dict(sorted(self.args_cut.items())),
            "args_kept": sorted(self.args_kept),
        }

    def load_state(self, d: dict[str, Any]) -> None:
        self.seen = set(d.get("seen", []))
        self.replacements = dict(d.get("replacements", {}))
        self.actions = dict(d.get("actions", {}))
        self.args_cut = {k: v for k, v in dict(d.get("args_cut", {})).items() if isinstance(v, dict)}
        self.args_kept = set(d.get("args_kept", []))
        self.seen.update(self.replacements)
        self._find_missing()

    def scratch(self) -> ToolResultBudget:
        """A copy that decides as this layer would and keeps what it decides to itself, writing no
        spill file: what /context and the toolbar show is the next request's view, and looking at
        it must not decide for that request."""
        twin = copy.copy(self)
        twin.seen, twin.replacements, twin.actions = set(self.seen), dict(self.replacements), dict(self.actions)
        twin.args_cut, twin.args_kept, twin._missing = dict(self.args_cut), set(self.args_kept), set(self._missing)
        twin._writes, twin._unwritten = False, {}
        return twin

    def adopt(self, twin: ToolResultBudget) -> None:
        """Take over what a scratch copy decided (a shaping committed once the compaction it was for
        went ahead), writing the spill files it only named. A file that cannot be written is
        written again from the session the next time its result is sent, as one gone missing is."""
        self._write_named(twin)
        self.seen, self.replacements, self.actions = set(twin.seen), dict(twin.replacements), dict(twin.actions)
        self.args_cut, self.args_kept = dict(twin.args_cut), set(twin.args_kept)

    def forget_absent(self, messages: list[ModelMessage]) -> None:
        """After a compaction: forget decisions about results that are gone for good, so the state
        (saved with every request) does not grow with the session's length. Spill files stay: a
        summary may still point at one."""
        present = {key for m in messages if isinstance(m, ModelRequest) for _, key, _ in keyed_parts(m.parts)}
        self.seen &= present
        self._missing &= present
        self.replacements = {k: v for k, v in self.replacements.items() if k in present}
        self.actions = {k: v for k, v in self.actions.items() if k in present}
        calls = {p.tool_call_id for m in messages if isinstance(m, ModelResponse)
                 for p in m.parts if isinstance(p, ToolCallPart)}
        self.args_cut = {k: v for k, v in self.args_cut.items() if k in calls}
        self.args_kept &= calls

    # -- the layer -----------------------------------------------------------------------------
    def apply(self, messages: list[ModelMessage], budget: Budget) -> LayerResult:
        watch = Stopwatch()
        before = tokens.estimate(messages)
        limits = self.limits(budget)
        self.room = limits[0]
        reads = self._reads(messages)
        answered = {p.tool_call_id for m in messages if isinstance(m, ModelRequest)
                    for p in m.parts if isinstance(p, ToolReturnPart)}
        out: list[ModelMessage] = []
        new_ids: list[str] = []
        new_actions: dict[str, str] = {}
        for message in messages:
            if isinstance(message, ModelResponse):
                out.append(self._cut_args(message, answered, limits[0]))
                continue
            if not isinstance(message, ModelRequest):
                out.append(message)
                continue
            decided = self._decide_fresh(message, limits, reads)
            for call_id, action in decided.items():
                new_ids.append(call_id)
                new_actions[call_id] = action
            out.append(self._render(message))
        after = tokens.estimate(out)
        events = []
        if new_ids:
            paths = [self.actions[i].get("path") for i in new_ids if self.actions[i].get("path")]
            events.append(
                Event(
                    layer=LAYER,
                    action="spill" if "spill" in new_actions.values() else "truncate",
                    tokens_before=before,
                    tokens_after=after,
                    ids=new_ids,
                    trigger="size",
                    duration_ms=watch.ms(),
                    detail={"actions": new_actions, "paths": paths},
                    time=budget.now.isoformat(),
                )
            )
        return LayerResult(messages=out, tokens_freed=max(0, before - after), events=events)

    def limits(self, budget: Budget) -> tuple[int, int]:
        """(one result, one request's fresh results) in characters: the settings, or a share (a
        quarter) and twice that of the room the window leaves the conversation, whichever is smaller; the room's share is
        never below twice the preview, so a preview is always a saving."""
        room_chars = int(budget.room * tokens.CHARS_PER_TOKEN) if budget.threshold else 10**12
        floor = 2 * self.settings.tool_result_preview_chars
        share = self.settings.tool_result_room_share
        one = min(self.settings.tool_result_max_chars, max(floor, int(room_chars * share)))
        many = max(one, min(self.settings.tool_results_per_message_chars, max(floor, int(room_chars * 2 * share))))
        return one, many

    def _cut_args(self, message: ModelResponse, answered: set[str], limit: int) -> ModelResponse:
        """Cut long string arguments of calls that have run; the same bytes on every request."""
        parts = list(message.parts)
        changed = False
        for i, part in enumerate(parts):
            if not isinstance(part, ToolCallPart) or part.tool_call_id not in answered:
                continue
            cached = self.args_cut.get(part.tool_call_id)
            if cached is None:
                if part.tool_call_id in self.args_kept:
                    continue
                cached = cut_args(part, limit, self.settings.tool_result_preview_chars)
                if cached is None:
                    self.args_kept.add(part.tool_call_id)
                    continue
                self.args_cut[part.tool_call_id] = cached
            parts[i] = replace(part, args=cached)  # type: ignore[arg-type]  # arguments cut to a preview, whatever the call
            changed = True
        return replace(message, parts=parts) if changed else message

    def shrink(self, messages: list[ModelMessage], need: int, short: bool = False) -> tuple[list[ModelMessage], list[str]]:
        """The last resort before a request that would not fit the window: replace the largest
        remaining tool results (newest first among equals) by previews until `need` estimated
        tokens are gone. The choice is frozen like any other, so later requests send the same
        bytes. `short`: every result, previews included, may go down to a short head and tail, and
        then the long arguments of calls that ran. Returns the new view and the ids replaced."""
        reads = self._reads(messages)
        every = measured(messages)
        sizes = [(len(text), i, key, text) for i, _, key, _, text in every if key not in self.replacements]
        freed = 0
        ids: list[str] = []
        for _, _, key, text in sorted(sizes, key=lambda x: (-x[0], -x[1])) if not short else ():
            if freed >= need:
                break
            if self._replace(key, text, reads=reads):
                self.seen.add(key)
                freed += tokens.text_tokens(text) - tokens.text_tokens(self.replacements[key])
                ids.append(key)
        if short and freed < need:
            chars = min(SHORT_PREVIEW_CHARS, self.settings.tool_result_preview_chars)
            for _, _, key, _, text in sorted(every, key=lambda x: -len(self.replacements.get(x[2], x[4]))):
                if freed >= need:
                    break
                shown = self.replacements.get(key, text)
                whole = self._whole_text(key, text)
                if whole is None:
                    continue
                if self._replace(key, whole, chars, reads) and len(self.replacements[key]) < len(shown):
                    self.seen.add(key)
                    freed += tokens.text_tokens(shown) - tokens.text_tokens(self.replacements[key])
                    ids.append(key)
        answered = {p.tool_call_id for m in messages if isinstance(m, ModelRequest)
                    for p in m.parts if isinstance(p, ToolReturnPart)}
        if short and freed < need:  # then the long arguments of calls that ran (a file written)
            chars = min(SHORT_PREVIEW_CHARS, self.settings.tool_result_preview_chars)
            calls = [p for m in messages if isinstance(m, ModelResponse) for p in m.parts
                     if isinstance(p, ToolCallPart) and p.tool_call_id in answered]
            for call in sorted(calls, key=lambda p: -tokens.part_tokens(p)):
                if freed >= need:
                    break
                as_shown = replace(call, args=self.args_cut.get(call.tool_call_id, call.args))  # type: ignore[arg-type]
                cut = cut_args(as_shown, chars, chars)
                if cut is not None:
                    self.args_cut[call.tool_call_id] = cut
                    freed += tokens.part_tokens(as_shown) - tokens.part_tokens(replace(call, args=cut))  # type: ignore[arg-type]
                    ids.append(call.tool_call_id)
        if not ids:
            return messages, ids
        return [self._render(m) if isinstance(m, ModelRequest) else self._shown_args(m)
                if isinstance(m, ModelResponse) else m for m in messages], ids

    def _shown_args(self, message: ModelResponse) -> ModelResponse:
        """`message` with the arguments already cut (frozen in `args_cut`) as they are shown."""
        parts = [replace(p, args=self.args_cut[p.tool_call_id])  # type: ignore[arg-type]
                 if isinstance(p, ToolCallPart) and p.tool_call_id in self.args_cut else p for p in message.parts]
        return replace(message, parts=parts) if parts != list(message.parts) else message

    def _reads(self, messages: list[ModelMessage]) -> Reads:
        """The reads in `messages` whose file a preview may send the model back to (rereads.py): no
        call beside or after one writes or edits it, as the compaction's ledger counts them (the
        caller's own writers, `file_tools`, included)."""
        writers = tuple(str(n).lower() for n in getattr(self.settings, "file_tools", ()))
        return Reads(messages, lambda response: changed_files([response], carried=False, writers=writers))

    def _decide_fresh(self, message: ModelRequest, limits: tuple[int, int], reads: Reads) -> dict[str, str]:
        """Judge the results of `message` not seen before; returns {id: "spill"|"truncate"} for new replacements."""
        # A result's text, or the text beside its files (images); a tool's content beside its result too.
        fresh = [(i, key, text) for i, key, part in keyed_parts(message.parts)
                 if key not in self.seen and (text := text_of_part(part)) is not None]
        if not fresh:
            return {}
        decided: dict[str, str] = {}
        size: dict[str, int] = {}
        for _, key, text in fresh:
            size[key] = len(text)
            if len(text) > limits[0]:
                action = self._replace(key, text, reads=reads)
                if action:
                    decided[key] = action
                    size[key] = len(self.replacements[key])
        # Largest first, position breaking ties, so the choice is the same on every run.
        candidates = sorted((p for p in fresh if p[1] not in decided), key=lambda p: (-len(p[2]), p[0]))
        limit = limits[1]
        for _, key, text in candidates:
            if sum(size.values()) <= limit:
                break
            action = self._replace(key, text, reads=reads)
            if action:
                decided[key] = action
                size[key] = len(self.replacements[key])
        self.seen.update(key for _, key, _ in fresh)
        return decided

    def _replace(self, call_id: str, text: str, preview_chars: int | None = None,
                 reads: Reads | None = None) -> str | None:
        """Spill `text` and remember its preview; None when a preview would not be smaller. A read's
        result that can be read again from its file (`reads`, rereads.py) gets a note naming that
        file; its copy is spilled all the same, for a shorter preview cut later (`_whole_text`)."""
        preview_chars = self.settings.tool_result_preview_chars if preview_chars is None else preview_chars
        text = secrets.redact(text)  # as the file holds it: the preview's byte offsets are the file's
        source = source_of(reads, call_id, text, self.tools.get)

        def preview(path: Path | None) -> str:
            return build_preview(text, preview_chars, path, tools=self.tools, room=self.room, source=source)

        if max(len(preview(p)) for p in (self._path(call_id), None)) >= len(text):
            return None
        path: Path | None = self._path(call_id)
        info: dict[str, Any] = {"action": "spill", "chars": len(text)}
        if path is not None:
            copy, numbered = self._copy(text)
            if self._spill(call_id, path, copy):
                info["path"] = str(path)
                if numbered is not None:  # the copy holds the lines without their numbers
                    info["numbered"] = numbered.state()
            else:
                path = None
        if path is None:
            info["action"] = "truncate"
        self.replacements[call_id] = preview(path)
        self.actions[call_id] = info
        return str(info["action"])

    def _render(self, message: ModelRequest) -> ModelRequest:
        """The request with every remembered replacement applied; the same object if none applies."""
        parts = list(message.parts)
        changed = False
        for i, key, part in keyed_parts(parts):
            if key not in self.replacements:
                continue
            if key in self._missing:
                self._respill(key, text_of_part(part))
            shown = self.replacements[key]
            if isinstance(part, UserPromptPart):  # a tool's content: the preview under its fence line
                parts[i] = with_text(part, shown)
            else:
                info = self.actions.get(key, {"action": "spill"})
                files = part.files  # kept beside the preview of their text, as the tool returned them
                parts[i] = replace(
                    part,
                    content=[shown, *files] if files else shown,  # a preview, then the files
                    metadata=mark(part.metadata, LAYER, info),
                )
            changed = True
        return replace(message, parts=parts) if changed else message
