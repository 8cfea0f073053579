"""The last resort: a request that would still exceed the window after compaction is shrunk.

A provider refuses a request over its window, and refuses the next one the same way: one round
bigger than the window (eight large files read at once, a system prompt that fills a small window)
would end the session for good. So the pipeline never sends such a request as it is. In order,
cheapest loss first (but see step 4):

1. the largest tool results become previews (the tool-result budget's own, frozen, so the next
   request repeats them and the saved history keeps the full text);
2. the oldest rounds after the first message (the summary, or the user's opening request) leave
   this request's view (the saved history keeps them), down to the newest round; what the user
   typed in them is carried after the first message, verbatim within half the room they freed
   (the newest at least by its first words: a short ask after a short answer freed less than itself);
3. every tool result left, previews included, shrinks to a short head and tail;
4. the model's earlier reasoning leaves the view (Anthropic needs the newest turn's back inside a
   tool loop: `without_thinking`). Where the provider's reports showed it does not count the earlier
   turns', that reasoning (and the turn under way's, if not counted either) goes first: a request is
   judged to fit with it until two reports of this process agree (`fit_size`), so a `-c -p` run of
   one request judged an 8K DeepSeek-like session at 14,299 tokens and left 9 rounds out, the model's
   own recent answers, of requests the server counted at ~1,336. Leaving the reasoning out is as safe
   size-wise and loses less; where the provider counts it (or nothing is known), the previews and the
   rounds keep the prompt's cached prefix better (the analyzer's replays cost more and recalled less
   with the reasoning first). Where the provider asks for the reasoning of the model's tool calls
   back (DeepSeek's thinking mode refuses a request without it), that stays through both, and is
   then emptied, not left out (`reasoning_emptied`: the field goes out empty, as pydantic-ai sends it);
5. what the first message carries verbatim (the summary with the user's words and the file ledger,
   or the opening request, and the carried words) gives way: a compaction message's records first
   (one line says they were left out), then each text cut to its first words (a compaction
   message to its floors: its head, each of the user's messages by its first words, newest first,
   and the files changed), then, only after step 6 folded the steps and the request is still over
   (or no fold can be made), replaced by one line saying that it was left out: the fold keeps a line
   of each step, where leaving that message out keeps none of the user's words it carries. The saved
   history keeps it all: this is what a system prompt that nearly fills the window leaves, and a
   refused request would end the session;
6. the newest steps themselves, when even their short previews do not fit (a system prompt that
   leaves a few hundred tokens): the messages after the first (or, after a compaction message
   alone in the request, what was joined to it: `_apart`) fold into one note on it, a line
   per step (what the model wrote, each call, what each result was and the file its whole text is
   saved in, what the user typed), shortened (the user's words never below their first words) and
   then oldest first dropped until the request fits. No call is left
   without its result, and the system prompt stays (unless the manager is told not to keep it).
   A model that answers the note by making the very same calls and getting the very same results
   has made no progress: those steps are not folded again, and the request is refused as too
   large for the window (pipeline.py), rather than folded and asked again until a run's request
   limit. (A command run again whose output changed is progress, and folds as any step.)
7. a compaction message's floors, thinner (`first_message.thinner`), where the request would still
   pass the window itself (not merely the 2% margin kept for the estimate's error): the user's
   messages it carries give way oldest first, down to the newest, then the list of the files
   changed (their number stays), a line saying how many went. Not where even the thinnest passes
   the window: nothing is given up for a request refused anyway.

Before all this, a request over the hard limit only by the model's earlier thinking goes without it where
that brings it under the threshold, and later ones leave it out before the layers run until a compaction
or rewind makes room (thinking_out.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..compaction import cut_replies, summary
from ..layers.previews import spill_name
from ..plumbing import history_state, markers, media_size, rounds, tokens
from ..plumbing.events import Event
from ..plumbing.tool_content import CONTENT_KEY, content_text, is_tool_content, keyed_parts
from .first_message import (
    CARRIED,
    HEAD_CHARS,
    cut_to_heads,
    texts_left_out,
    thinner,
    without_records,
)
from .thinking_out import reasoning_emptied, without_thinking
from .view import ShrinkView

__all__ = ["CARRIED", "shrink_event", "shrink_to_fit"]

FOLDED = markers.FOLDED
DOCUMENTS_LEFT_OUT = ("[compact-agent: the documents the user attached in the rounds left out of this request, "
                      "left out with them (the saved session keeps them): ")
STEP_CHARS = (160, 60)  # a folded step's line, then shorter


def _typed(cm: ShrinkView, messages: list[ModelMessage]) -> list[str]:
    """What the user typed in `messages` (the compactor's rule, which knows a harness's injected text)."""
    compactor = getattr(cm, "compactor", None)
    return compactor.user_texts(messages) if compactor is not None else summary.user_texts(messages)


def shrink_to_fit(cm: ShrinkView, view: list[ModelMessage], tokens_now: int,
                  limit: int | None = None) -> tuple[list[ModelMessage], int]:
    """The view of `cm`'s request brought under `limit` (default: the window less a 2% margin;
    lower when a blocked compaction leaves room for the answer this way); returns it and its size."""
    if limit is None:
        limit = cm.limits.window - cm.limits.window // 50
    given = view  # what pydantic-ai reads back from it is kept (history_state.py)
    budget = next((layer for layer in cm.layers if hasattr(layer, "shrink")), None)
    ids: list[str] = []
    after = tokens_now
    counted = cm.measure(view)  # as the provider counts it: what the line says was freed (below)
    thinking = 0
    if cm.calibration.thinking_counted is False:  # the earlier turns', and the turn under way's if not counted
        upto = len(view) if cm.calibration.current_thinking_counted is False else tokens.turn_start(view)
        view, thinking = without_thinking(view, cm.provider, upto, calls_keep=cm.reasoning_asked_back)
        after = cm.fit_size(view) if thinking else after
    if after > limit and budget is not None:
        need = max(1, int((after - limit) / max(cm.calibration.ratio, 0.1)) + 1)
        view, ids = budget.shrink(view, need)
        after = cm.fit_size(view) if ids else after
    dropped = 0
    # The first message stays: the summary, or the user's opening request.
    keep_first = 1 if view and isinstance(view[0], ModelRequest) else 0
    first = view[0] if keep_first and isinstance(view[0], ModelRequest) else None
    words: list[str] = []  # what the user typed in the rounds left out, carried after the first message
    docs: list[str] = []  # the documents the user attached in them, named after the words
    left_out = 0  # estimated tokens of those rounds
    # The rounds are found once: leaving out the oldest leaves the others' bounds as they were, less its length.
    rs = rounds.api_rounds(view[keep_first:]) if after > limit else []
    while after > limit and dropped + 1 < len(rs):
        cut = keep_first + rs[dropped + 1][0] - rs[dropped][0]
        words += _typed(cm, view[keep_first:cut])
        docs += [media_size.document_name(c) for m in view[keep_first:cut] if isinstance(m, ModelRequest)
                 for p in m.parts if isinstance(p, UserPromptPart) and not isinstance(p.content, str)
                 for c in p.content if media_size.is_document(c)]
        left_out += tokens.estimate(view[keep_first:cut])
        view = [*view[:keep_first], *view[cut:]]
        if first is not None and (words or docs):
            # Verbatim within half of what left, else the heads of the older ones (user_messages.pick_user_messages):
            # the words never take back the room that leaving the rounds out made.
            kept = list(reversed(summary.pick_user_messages(words, left_out // 2)))  # the newest by its first words at least
            carried = [UserPromptPart(CARRIED + "\n".join(summary.user_item(w) for w in kept))] if kept else []
            carried += [UserPromptPart(DOCUMENTS_LEFT_OUT + "; ".join(docs) + "]")] if docs else []
            if carried:
                view[0] = dataclasses.replace(first, parts=[*first.parts, *carried])
        dropped += 1
        after = cm.fit_size(view)
    if after > limit and budget is not None:
        need = max(1, int((after - limit) / max(cm.calibration.ratio, 0.1)) + 1)
        view, more = budget.shrink(view, need, short=True)
        ids += more
        after = cm.fit_size(view) if more else after
    if after > limit:  # what the first step left (the turn under way's, or all where it did not run)
        view, more = without_thinking(view, cm.provider, calls_keep=cm.reasoning_asked_back)
        thinking, after = thinking + more, cm.fit_size(view) if more else after
    emptied = 0
    if after > limit and cm.reasoning_asked_back:  # the reasoning of the calls, asked back: emptied, not left out
        view, emptied = reasoning_emptied(view)
        after = cm.fit_size(view) if emptied else after
    first_cut = 0
    # The user's newest request keeps at least its first words: the first message's own texts are
    # left out only when a later message, or the carried words, hold a newer one.
    later_ask = any(isinstance(p, UserPromptPart) and not is_tool_content(p) for m in view[1:]
                    if isinstance(m, ModelRequest) for p in m.parts) or (first is not None and view[0] is not first)
    head = view[0] if view else None
    cuttable = isinstance(head, ModelRequest) and (len(view) > 1 or summary.written_by_compaction(head))
    if after > limit and isinstance(head, ModelRequest) and cuttable:  # records, then the floors
        for shorten in (without_records, cut_to_heads):
            head, changed = shorten(head)
            view[0] = head
            if changed:
                first_cut += 1
                after = cm.fit_size(view)
            if after <= limit:
                break
    folded = 0
    steps = view if len(view) > 1 else _apart(view[0]) if view else None
    if after > limit and steps is not None and isinstance(steps[0], ModelRequest):
        newest = max((i for i, m in enumerate(steps) if isinstance(m, ModelResponse)), default=len(steps))
        asked = _steps_done(steps[newest:])
        at, before = cm.folded_calls
        if at != cm.requests - 1 or not asked or not asked <= before:  # not the same steps as the fold before
            cm.folded_calls = (cm.requests, _steps_done(steps[1:]))
            shrunk, size, folded = _fold(cm, steps, limit, budget)
            view, after = (shrunk, size) if folded else (view, after)
            # The steps fold before the first message's texts go (a line each, where left out the user's
            # words it carries keep none): only a fold still over leaves them out, and folds again.
            if folded and after > limit and later_ask and (left := texts_left_out(steps[0]))[1]:
                (view, after, folded), first_cut = _fold(cm, [left[0], *steps[1:]], limit, budget), first_cut + 1
    if after > limit and not folded and cuttable and later_ask and isinstance(view[0], ModelRequest):
        view[0], changed = texts_left_out(view[0])
        first_cut, after = (first_cut + 1, cm.fit_size(view)) if changed else (first_cut, after)
    # Its floors, thinner each time: the user's words go only where the request would pass the window
    # itself (a refusal), not merely the margin kept for the estimate's error.
    if after > max(limit, cm.limits.window) and view and isinstance(view[0], ModelRequest):
        whole, over = view[0], after
        for thinned in thinner(whole):
            view[0], after = thinned, cm.fit_size([thinned, *view[1:]])
            if after <= limit:
                break
        if after > cm.limits.window:  # over even at the thinnest: the words were given up for nothing
            view[0], after = whole, over
        first_cut += view[0] is not whole
    if ids or dropped or thinking or emptied or first_cut or folded:
        # Freed: of what left, what the provider counts; the sizes are those judged to fit, which count
        # the thinking it leaves out until its reports agree (the reasoning of 19 answers "freed 9,756
        # tokens" in an 8K window, of requests it counted at 3,500).
        freed = max(0, min(tokens_now - after, counted - cm.measure(view)))
        cm.emit(shrink_event(tokens_now, after, ids=ids, dropped=dropped, thinking=thinking, emptied=emptied,
                             first_cut=first_cut, folded=folded, freed=freed))
    return history_state.kept(given, view), after


def shrink_event(before: int, after: int, *, ids: Sequence[str] = (), dropped: int = 0, thinking: int = 0,
                 emptied: int = 0, first_cut: int = 0, folded: int = 0, freed: int | None = None) -> Event:
    """The `budget` / `shrink` event: what each step left out (render.py names them; shaping.py's too).
    `emptied`: the tool calls whose reasoning went out empty, where it is asked back (`reasoning_emptied`)."""
    return Event("budget", "shrink", before, after, ids=list(ids), trigger="window", freed=freed,
                 detail={"previews": len(ids), "rounds_left_out": dropped, "thinking_left_out": thinking,
                         "reasoning_emptied": emptied, "first_message_cut": first_cut, "steps_folded": folded})


def _fold(cm: ShrinkView, view: list[ModelMessage], limit: int, budget: object | None
          ) -> tuple[list[ModelMessage], int, int]:
    """Step 6: the messages after the first folded into one note on it, each step a line, until
    the request fits (shorter lines, then the oldest left out; the newest always stays). Returns the
    view, its size and how many messages were folded."""
    first = view[0]
    assert isinstance(first, ModelRequest)
    save: Callable[[ToolReturnPart], Path | None] | None = getattr(budget, "saved_copy", None)
    save_text: Callable[[str, str | None], Path | None] | None = getattr(budget, "saved_text", None)
    saved: dict[str, Path | None] = {  # each written once, whatever the passes; a tool's content as its result
        key: (save(p) if save is not None else None) if isinstance(p, ToolReturnPart) else
        save_text(key, content_text(p)) if save_text is not None else None
        for m in view[1:] if isinstance(m, ModelRequest) for _, key, p in keyed_parts(m.parts)}
    keep_system = getattr(cm, "keep_system_prompts", True)
    head = [p for p in first.parts if keep_system or not isinstance(p, SystemPromptPart)]
    best: tuple[list[ModelMessage], int] | None = None
    for chars in STEP_CHARS:
        lines = [line for m in view[1:] for line in _steps(m, chars, saved)]
        while lines:
            note = UserPromptPart(FOLDED + "\n".join(f"- {line}" for line in lines))
            folded: list[ModelMessage] = [dataclasses.replace(first, parts=[*head, note])]
            size = cm.fit_size(folded)
            if best is None or size < best[1]:
                best = (folded, size)
            if size <= limit or len(lines) == 1:
                break
            lines = lines[1:]
        if best is not None and best[1] <= limit:
            break
    if best is None:
        return view, cm.fit_size(view), 0
    return best[0], best[1], len(view) - 1


def _apart(first: ModelMessage) -> list[ModelMessage] | None:
    """A compaction message alone in the request, as the fold reads it: the message up to its last
    compaction part, then what was joined after it (the newest request, beside a record of every
    step) as the step after it. None for any other message, or one with nothing joined."""
    if not isinstance(first, ModelRequest) or not summary.written_by_compaction(first):
        return None
    at = max((i + 1 for i, p in enumerate(first.parts) if summary.compaction_part(p)), default=len(first.parts))
    return [dataclasses.replace(first, parts=first.parts[:at]), ModelRequest(parts=first.parts[at:])] \
        if at < len(first.parts) else None


def _steps_done(messages: Sequence[ModelMessage]) -> set[str]:
    """Each call in `messages` with its result, by what it asked and what came back, whatever its
    id (a saved result's file is named after the id: the name is left out)."""
    results = {p.tool_call_id: p for m in messages if isinstance(m, ModelRequest)
               for p in m.parts if isinstance(p, ToolReturnPart)}
    done: set[str] = set()
    for m in messages:
        for p in m.parts if isinstance(m, ModelResponse) else ():
            if isinstance(p, ToolCallPart):
                result = results.get(p.tool_call_id)
                text = "" if result is None else str(result.content).replace(spill_name(p.tool_call_id), "")
                digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
                done.add(f"{p.tool_name}:{p.args_as_json_str()}:{digest}")
    return done


def _steps(message: ModelMessage, chars: int, saved: dict[str, Path | None]) -> list[str]:
    """One line per part of `message` worth a line in the folded note, each cut to `chars`;
    `saved`: where each result's whole text is, by call id (a tool's content's, `CONTENT_KEY` after
    it). A tool's content is the tool's, never "the user wrote"; a document the user attached is
    said to be left out, by its name."""
    def cut(text: str, room: int = chars) -> str:
        text = " ".join(text.split())
        return text if len(text) <= room else text[:room] + "…"

    lines: list[str] = []
    contents = {id(p): key for _, key, p in keyed_parts(message.parts) if isinstance(p, UserPromptPart)}
    names = {p.tool_call_id: p.tool_name for p in message.parts if isinstance(p, ToolReturnPart)}
    for p in message.parts:
        if id(p) in contents and isinstance(p, UserPromptPart):
            key = contents[id(p)]
            call = key[:key.rindex(CONTENT_KEY)]
            path = saved.get(key)
            where = f"; whole text in {path}" if path is not None else "; not saved, run it again if needed"
            lines.append(f"{summary.one_line(names.get(call, 'the tool'))} (id {summary.one_line(call)}) also showed "
                         f"beside its result{where}: {cut(content_text(p) or '')}")
        elif isinstance(p, TextPart) and p.content.strip():
            lines.append("you wrote: " + cut_replies.clipped(p.content, chars))  # a mark it ends with, whole
        elif isinstance(p, ToolCallPart):
            lines.append(f"you called {summary.one_line(p.tool_name)} (id {summary.one_line(p.tool_call_id)}): {cut(p.args_as_json_str())}")
        elif isinstance(p, ToolReturnPart):
            path = saved.get(p.tool_call_id)
            text = p.content if isinstance(p.content, str) else p.model_response_str()
            where = f"; whole text in {path}" if path is not None else "; not saved, run it again if needed"
            lines.append(f"{summary.one_line(p.tool_name)} (id {summary.one_line(p.tool_call_id)}) returned{where}: {cut(text)}")
        elif isinstance(p, RetryPromptPart | RetryFeedbackPart):
            name = (p.tool_name if isinstance(p, RetryPromptPart) else None) or "the reply"
            lines.append(f"{summary.one_line(name)} was refused: {cut(p.model_response())}")
        elif isinstance(p, UserPromptPart):
            content = p.content if isinstance(p.content, str) else " ".join(c for c in p.content if isinstance(c, str))
            if content.strip():
                lines.append("the user wrote: " + cut(content, max(chars, HEAD_CHARS)))  # their words: the longest
            docs = [] if isinstance(p.content, str) else [c for c in p.content if media_size.is_document(c)]
            if docs:
                lines.append(f"the user attached {'a document' if len(docs) == 1 else f'{len(docs)} documents'}, "
                             "left out of this request to fit the window (the saved session keeps "
                             f"{'it' if len(docs) == 1 else 'them'}): " + "; ".join(map(media_size.document_name, docs)))
    return lines
