"""How a compaction cuts a history: media out of the summary request, the oldest rounds dropped
until it fits (one round alone too long: its longest texts, the user's, a tool's or the model's,
cut to their ends; what the user typed in those dropped quoted in its prompt), where the verbatim
tail begins, and pieces joined into valid messages.

Pure functions of the messages (and the summarizer, for the one that retries on "prompt too
long"); every cut falls on a safe point (`rounds.py`), so no call is parted from its result.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

from pydantic_ai.exceptions import ModelContextWindowExceededError, ModelHTTPError
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..plumbing import markers, rounds, tokens
from ..plumbing.overflow import as_overflow
from .result import CompactionError, Summarize, SummaryNotSent
from .summary import MIDDLE_MARK, ends, is_summary
from .summary_prompt import with_typed

MAX_PTL_RETRIES = 3


def strip_media(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """Replace images and documents by `[image]`/`[document]`: a summary needs neither, and they
    can make the summary request itself too long."""
    out: list[ModelMessage] = []
    for m in messages:
        if not isinstance(m, ModelRequest):
            out.append(m)
            continue
        parts = []
        changed = False
        for p in m.parts:
            content = getattr(p, "content", None)
            if isinstance(content, (list, tuple)) and any(not isinstance(c, str) for c in content):
                new = [c if isinstance(c, str) else _media_label(c) for c in content]
                parts.append(dataclasses.replace(p, content=new))  # type: ignore[arg-type]
                changed = True
            elif isinstance(content, BinaryContent):
                parts.append(dataclasses.replace(p, content=_media_label(content)))  # type: ignore[arg-type]
                changed = True
            else:
                parts.append(p)
        out.append(dataclasses.replace(m, parts=parts) if changed else m)
    return out


def _media_label(c: object) -> str:
    media = str(getattr(c, "media_type", "") or getattr(c, "kind", ""))
    return "[image]" if "image" in media else "[document]"


def drop_oldest_rounds(messages: list[ModelMessage], n: int) -> list[ModelMessage]:
    """Drop the oldest `n` API rounds, keeping at least one; the rest starts at a safe cut."""
    rs = rounds.api_rounds(messages)
    if len(rs) <= 1:
        return messages
    n = min(n, len(rs) - 1)
    return messages[rs[n][0]:]


def drop_oldest_after_first(messages: list[ModelMessage], n: int) -> list[ModelMessage]:
    """Drop the `n` oldest API rounds after the first, keeping the first and the newest: the first
    is the opening request or the compaction message (the user's first words, or the record of
    everything before), and keeping it keeps the prefix the conversation last sent. With two
    rounds or fewer, as `drop_oldest_rounds`."""
    rs = rounds.api_rounds(messages)
    if len(rs) <= 2:
        return drop_oldest_rounds(messages, n)
    n = min(n, len(rs) - 2)
    return [*messages[:rs[1][0]], *messages[rs[1 + n][0]:]]


LEFT_OUT = f"{markers.OWN_TEXT} the earlier part of this conversation is left out of this request to fit the window]"
"""Said first in a request whose kept messages begin with the model's answer (`user_first`); the
program's words (`OWN_TEXT`), never counted as a message the user typed."""


def user_first(messages: list[ModelMessage]) -> list[ModelMessage]:
    """`messages` as a request may send them: beginning with a user message. Dropping the oldest
    rounds leaves the rest beginning with a response (a round starts at one), which Anthropic's API
    refuses ('first message must use the "user" role'), as do Bedrock and chat templates that want
    user and assistant in turn from the user; a short request of ours saying that the earlier
    conversation was left out then goes first. Calls and their results stay as they were."""
    if messages and isinstance(messages[0], ModelResponse):
        return [ModelRequest(parts=[UserPromptPart(LEFT_OUT)]), *messages]
    return messages


Quote = Callable[[Sequence[ModelMessage], int], str]
"""What a summary request says of the messages it left out to fit (`summarize_fitting`), in at most
the tokens given: the block quoting the user's typed messages among them (`Compactor.typed_left_out`),
"" for none."""
QUOTE_SHARE = 4
"""The block quoting the typed messages of the rounds left out takes at most 1/QUOTE_SHARE of the room."""


async def summarize_fitting(messages: Sequence[ModelMessage], prompt: str, summarize: Summarize,
                            max_input_tokens: int, kept_newest: int = 0,
                            learn: Callable[[BaseException], int | None] | None = None,
                            quote: Quote | None = None, kept_before: int = 0) -> tuple[str, int]:
    """Ask for a summary whatever the size: strip media, pre-trim to the summarizer's window,
    then drop the oldest rounds after the first on each "prompt too long", or on a request too long
    to be sent at all (`SummaryNotSent`), up to MAX_PTL_RETRIES.

    Pre-trimming first leaves out the newest rounds that lie within the last `kept_newest`
    messages: the compaction keeps those verbatim, so the summary needs them least, and the
    request keeps the prefix the conversation last sent (a cache hit) and the user's first words.
    Every request begins with a user message (`user_first`, counted in its size).

    `quote`: what the user typed in the rounds left out of those summarised (neither the newest
    `kept_newest` nor the first `kept_before`, a head kept before the summary) is quoted before the
    prompt's closing reminder (`summary_prompt.with_typed`), its room taken from the messages': the
    typed messages are the last thing to leave. Left out with their rounds, a small window's summary
    request kept four file reads and lost the task they were read for, which the prompt then asked
    the summary to state.

    `learn`: told a "prompt too long", the room the messages have now when it named a window below
    the one the request was sized for (the caller learned it, as from a refused chat request), else
    None. The request is then made again, pre-trimmed to that room, before any round is dropped for
    it: a server smaller than the window given refused every summary request (each asking for what
    the given window left), and nothing was learned from it.
    Returns the raw reply and how many rounds were dropped.
    """
    whole = strip_media(messages)
    kept_from = len(messages) - kept_newest
    summarised = whole[kept_before:kept_from]
    msgs, dropped, asked, cut_from = _fitted(whole, prompt, max_input_tokens, kept_from, summarised, quote)
    attempt = 0
    while True:
        try:
            return await summarize(user_first(msgs), asked), dropped
        except SummaryNotSent:  # too long to send at all (the summarizer's check): fewer rounds, or none
            if attempt == MAX_PTL_RETRIES or len(rounds.api_rounds(msgs)) <= 1:
                raise
        except (ModelContextWindowExceededError, ModelHTTPError) as e:  # a local server's words for it too
            overflow = as_overflow(e)
            if overflow is None:
                raise
            room = learn(overflow) if learn is not None else None
            if room is not None and room < max_input_tokens:  # a smaller window learned: sized for it
                max_input_tokens = room
                msgs, dropped, asked, cut_from = _fitted(whole, prompt, room, kept_from, summarised, quote)
                continue
            if attempt == MAX_PTL_RETRIES or len(rounds.api_rounds(msgs)) <= 1:
                if overflow is e:
                    raise
                raise overflow from e
        attempt += 1
        k = max(1, len(rounds.api_rounds(msgs)) // 5)
        msgs = drop_oldest_after_first(msgs, k)
        dropped += k
        if quote is not None:
            asked = with_typed(prompt, quote(_left_out(summarised, msgs, cut_from), max_input_tokens // QUOTE_SHARE))


def _fitted(whole: list[ModelMessage], prompt: str, room: int, kept_from: int, summarised: Sequence[ModelMessage],
            quote: Quote | None) -> tuple[list[ModelMessage], int, str, dict[int, ModelMessage]]:
    """`_pretrimmed` to `room`, with the prompt that asks for the summary and what each message cut
    to its ends was cut from (by `id`): with `quote`, the typed messages of the `summarised` rounds left
    out quoted in the prompt (`with_typed`), the messages trimmed to the room the quote leaves. Each reserve taken
    for the quote can leave more out, so it is sized again, a few times at most; a quote still larger
    is sent, for the summarizer's check and retries to fit."""
    reserve = 0
    for sized in range(1, 5):
        msgs, dropped, whole_msgs = _pretrimmed(whole, room - reserve, kept_from)
        cut_from = {id(m): w for m, w in zip(msgs, whole_msgs, strict=True) if m is not w}
        if quote is None:
            return msgs, dropped, prompt, cut_from
        asked = with_typed(prompt, quote(_left_out(summarised, msgs, cut_from), room // QUOTE_SHARE))
        need = tokens.text_tokens(asked) - tokens.text_tokens(prompt)
        if need <= reserve or sized == 4:
            return msgs, dropped, asked, cut_from
        reserve = need
    raise AssertionError("unreachable: the fourth sizing returns")


def _left_out(summarised: Sequence[ModelMessage], sent: Sequence[ModelMessage],
              cut_from: dict[int, ModelMessage]) -> list[ModelMessage]:
    """The messages of `summarised` that `sent` left out; one it holds cut to its ends is the one it
    was cut from (`cut_from`)."""
    kept = {id(cut_from.get(id(m), m)) for m in sent}
    return [m for m in summarised if id(m) not in kept]


def _pretrimmed(msgs: list[ModelMessage], max_input_tokens: int, kept_from: int
                ) -> tuple[list[ModelMessage], int, list[ModelMessage]]:
    """`msgs` cut to `max_input_tokens` before anything is sent (`summarize_fitting`): the newest rounds
    from `kept_from` on first, then the oldest after the first, then the longest texts of what is
    left; with the rounds dropped, and the messages kept as they were before their texts were cut.

    The rounds are found once and each one's size counted once: a round ends where no call waits
    for its result, so the rounds of what is left after some are dropped are the rest of them (the
    first compaction of a resumed 6,000-message session took most of a minute finding them again
    after each round dropped)."""
    rs = rounds.api_rounds(msgs)
    if not rs:
        return cut_longest_texts(msgs, max_input_tokens), 0, msgs
    sizes = [tokens.estimate(msgs[a:b]) for a, b in rs]
    said = tokens.estimate(user_first([ModelResponse(parts=[])])) - tokens.estimate([ModelResponse(parts=[])])

    def over(total: int, first: ModelMessage) -> bool:  # as `user_first` sends it
        return total + (said if isinstance(first, ModelResponse) else 0) > max_input_tokens

    total, last, dropped = sum(sizes), len(rs), 0  # rounds rs[:last] kept
    while over(total, msgs[0]) and last > 1 and rs[last - 1][0] >= kept_from:
        last -= 1
        total -= sizes[last]
        dropped += 1
    after, left = 1, last  # then rs[1:after] dropped (`drop_oldest_after_first`): `left` rounds kept
    while left > 1 and over(total, msgs[0]):
        total -= sizes[after] if left > 2 else sizes[0]  # of two, the first goes (`drop_oldest_rounds`)
        after += left > 2
        left -= 1
        dropped += 1
    if left == 1 and last > 1:  # the newest round alone
        kept = msgs[rs[last - 1][0]:rs[last - 1][1]]
    else:
        kept = [*msgs[:rs[0][1]], *msgs[rs[after][0]:rs[last - 1][1]]] if after < last else msgs[:rs[0][1]]
    cut = cut_longest_texts(kept, max_input_tokens - (tokens.estimate(user_first(kept)) - tokens.estimate(kept)))
    return cut, dropped, kept


def cut_longest_texts(messages: Sequence[ModelMessage], max_tokens: int) -> list[ModelMessage]:
    """`messages`, whose one round left is still over `max_tokens` (a paste, a tool's output or an
    answer larger than the window), with its longest texts cut to their beginning and end
    (`user_messages.ends`: half each, `MIDDLE_MARK` where the middle was), the longest first, until the
    whole fits: the summary request is not sent over its room, and it reads of such a message what
    the compacted history keeps of it. Messages that fit, or that no cut would make fit (a room the
    fixed part of the request already fills), are returned as they are."""
    out = list(messages)
    over = tokens.estimate(out) - max_tokens
    while over > 0:
        longest = max(((len(text), i, j) for i, m in enumerate(out) for j, p in enumerate(m.parts)
                       if (text := _cuttable(m, p)) is not None), default=None)
        if longest is None:
            return list(messages)
        size, i, j = longest
        room = max(size - math.ceil(over * tokens.CHARS_PER_TOKEN) - len(MIDDLE_MARK), 2 * len(MIDDLE_MARK))
        if room >= size:
            return list(messages)  # cutting cannot make it fit: sent whole, not made worse for nothing
        m = out[i]
        parts: list[object] = list(m.parts)
        text = _cuttable(m, m.parts[j])
        assert text is not None
        parts[j] = dataclasses.replace(m.parts[j], content=ends(text, room))  # type: ignore[arg-type]  # text stays text
        out[i] = dataclasses.replace(m, parts=parts)  # type: ignore[arg-type]  # of the parts it had
        over = tokens.estimate(out) - max_tokens
    return out


def _cuttable(message: ModelMessage, part: object) -> str | None:
    """The text of `part` that a summary request's cut may shorten, None for a part it must send
    whole: the user's words and a tool's result in a request, the model's answer in a response.
    Never a call's arguments (half a JSON object is no call, and its result would answer a call the
    request no longer makes), nor thinking (a provider may check its signature)."""
    if isinstance(message, ModelRequest):
        wanted: tuple[type, ...] = (UserPromptPart, ToolReturnPart)
    else:
        wanted = (TextPart,)
    content = getattr(part, "content", None) if isinstance(part, wanted) else None
    return content if isinstance(content, str) else None


def join(*groups: Sequence[ModelMessage]) -> list[ModelMessage]:
    """Concatenate history pieces, merging adjacent requests (or responses) into one message so
    the result is already what the provider receives (`repair_messages` leaves it alone)."""
    out: list[ModelMessage] = []
    for g in groups:
        for m in g:
            prev = out[-1] if out else None
            if isinstance(prev, ModelRequest) and isinstance(m, ModelRequest):
                out[-1] = dataclasses.replace(prev, parts=[*prev.parts, *m.parts],
                                              metadata=markers.joined_metadata([prev, m]))
            elif isinstance(prev, ModelResponse) and isinstance(m, ModelResponse):
                out[-1] = dataclasses.replace(prev, parts=[*prev.parts, *m.parts])
            else:
                out.append(m)
    return out


def newest_typed(summarized: Sequence[ModelMessage], tail: Sequence[ModelMessage],
                 typed: Callable[[Sequence[ModelMessage]], Sequence[str]]) -> int | None:
    """The index in `summarized` of the request holding the user's newest message (`typed`: what the
    user typed in some messages), when `tail` holds none: the compaction message then carries it, so
    what the compaction keeps after that message from before it reads as done after it (`kept_before`).
    None when the tail holds one, or the newest is one a compaction message carries already."""
    if typed(tail):
        return None
    for i in range(len(summarized) - 1, -1, -1):
        if markers.is_compaction_message(summarized[i]):
            return None
        if typed(summarized[i:i + 1]):
            return i
    return None


def kept_before(kept: Sequence[ModelMessage], summarized: Sequence[ModelMessage],
                at: int | None) -> tuple[list[ModelMessage], list[ModelMessage]]:
    """`kept` (calls with their results, in order) split into the pairs whose result came before
    `summarized[at]` (the user's newest message, `newest_typed`) and the rest. A compaction puts the
    first before that message, as they came: after the compaction message that carries it, an edit
    from two turns before stood as the model's first step on the newest message."""
    if at is None:
        return [], list(kept)
    where = {p.tool_call_id: i for i, m in enumerate(summarized) if isinstance(m, ModelRequest)
             for p in m.parts if isinstance(p, ToolReturnPart)}
    split = len(kept)
    for i in range(0, len(kept) - 1, 2):  # [call, result] pairs
        if any(isinstance(p, ToolReturnPart) and where.get(p.tool_call_id, at) >= at for p in kept[i + 1].parts):
            split = i
            break
    return list(kept[:split]), list(kept[split:])


def answer_apart(recent: Sequence[ModelMessage]) -> tuple[list[ModelMessage], list[ModelMessage]]:
    """What `--from N` summarises of `recent` (the messages from N on), and what it keeps after the
    summary: the answer that ends them, where they end at one (a response that calls no tool), so the
    history still ends as that finished turn did. Summarised with the rest, the history ended at the
    summary's request, and the next turn closed it as one that 'ended before an answer', a close the
    model then read and /history showed."""
    if not recent or not isinstance(last := recent[-1], ModelResponse) or rounds.call_ids(last):
        return list(recent), []
    if len(recent) == 1:
        raise CompactionError("nothing to summarise from that message but the last answer, which is kept")
    return list(recent[:-1]), [last]


def partial_split(messages: Sequence[ModelMessage], pivot: int, direction: str
                  ) -> tuple[list[ModelMessage], list[ModelMessage], list[ModelMessage]]:
    """What `/compact --from N` (`from`) or `--up-to N` (`up_to`) at `pivot` keeps before its summary,
    summarises, and keeps after it: `--from` keeps the messages before N (moved back so that no tool
    call is parted from its result) and the answer the rest ends at (`answer_apart`); `--up-to`
    summarises those before N (moved forward), the answer the conversation ends at kept all the same.
    `Compactor.compact_partial` makes it, and /compact measures it before asking for a summary
    (agent/run/small_gain.py). Raises CompactionError for an unknown direction, or where only the last
    answer would be summarised."""
    if direction == "from":
        pivot = rounds.adjust_cut_backward(messages, pivot)
        to_sum, tail = answer_apart(messages[pivot:])
        return list(messages[:pivot]), to_sum, tail
    if direction == "up_to":
        pivot = rounds.adjust_cut_forward(messages, pivot)  # to the end: the answer it ends at stays
        pivot = len(answer_apart(messages)[0]) if pivot >= len(messages) else pivot
        return [], list(messages[:pivot]), [m for m in messages[pivot:] if not is_summary(m)]
    raise CompactionError(f"unknown direction {direction!r}")


def _results(message: ModelMessage) -> int:
    return sum(1 for p in message.parts if isinstance(p, ToolReturnPart)) if isinstance(message, ModelRequest) else 0


def tail_start(messages: Sequence[ModelMessage], max_tokens: int, max_results: int | None = None,
               measure: Callable[[Sequence[ModelMessage]], int] = tokens.estimate) -> int:
    """Where the verbatim tail after a summary begins.

    The newest request is what the model must answer now (a user prompt, or tool results it has
    not seen), so it is kept, with the response whose calls it answers, and with the files and
    images the user attached to it (`markers.is_attachment`: an exchange the model has not seen
    either, which a summary would reduce to "read p.txt"). Older rounds are added
    while they fit `max_tokens` and, with `max_results`, until the tail holds that many tool
    results: the newest results are the working memory a summary describes worst. `measure`: the
    size of messages in the units of `max_tokens` (the compactor's `estimated`).
    """
    n = len(messages)
    if n == 0:
        return 0
    start = rounds.adjust_cut_backward(messages, n - 1)
    while start > 0 and markers.is_attachment(messages[start - 1]):
        start = rounds.adjust_cut_backward(messages, start - 1)
    safe = rounds.safe_cuts(messages)
    i = start
    held = sum(_results(m) for m in messages[start:])
    while i > 0 and (max_results is None or held < max_results):
        j = i - 1
        while j > 0 and not safe[j]:
            j -= 1
        if measure(messages[j:]) > max_tokens:
            break
        held += sum(_results(m) for m in messages[j:i])
        i = j
    return i if i > 0 else start
