"""What a provider's "prompt too long" answer tells: that it is one, how big the refused prompt
was, and the window's real limit when it is below the one the conversation was given.

pydantic-ai classifies OpenAI's `context_length_exceeded` and a few hosted APIs' wordings as a
`ModelContextWindowExceededError`. The local servers word it their own way, and reach the agent as
a plain HTTP 400: llama.cpp server's `exceed_context_size_error` ("request (N tokens) exceeds the
available context size (M tokens)"), vLLM's engine ("The decoder prompt (length N) is longer than
the maximum model length of M"), LM Studio ("the model is loaded with context length of only M
tokens"), SGLang, text-generation-inference (TGI) and TabbyAPI (their words are quoted beside
each pattern, with the source file that writes them). `as_overflow` reads those as what they are,
so they are compacted and retried like any other (`pipeline.on_model_request_error`). TGI checks a
streamed request once its stream is open: its refusal is an error event after an HTTP 200, which
pydantic-ai raises as a `ModelAPIError` with no status (`in_stream`); read the same way. So is a
refusal among the errors of pydantic-ai's `FallbackModel` when all its models failed (a
`FallbackExceptionGroup`: the primary busy, the fallback's window smaller): the run ended on the group,
no compaction tried. The limit it names is learned for the `FallbackModel` the run's requests go to.

A server may hold a smaller window than the one it was introduced with (`--context-window 64k`
for a server started with 8K): its refusal is the only place that says so. The limit learned is
kept with the layers' decisions (the `learned` entry of the saved state) beside the window it
replaced and the server it was learned from, as the host names it (`Internals.server`: the agent's
model and endpoint), so a conversation resumed with that same window against that same server works
within the server's from its first request; one given another window, or sent to another server or
model, does not take it.

A limit learned (a refusal, or prompts cut: silent_cut.py) is one model's: a conversation handed from
one model to another (an agent's hand-off, `run(model=...)`) is held to it only while its requests go
to that model (`ModelWindows`, lifecycle.window_from): a researcher on a 100K model went on compacting
at 4K after a coder on a 4K model had been refused once in the same conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic_ai.exceptions import ModelAPIError, ModelContextWindowExceededError, ModelHTTPError

from .tokens import Calibration

_N = r"(\d[\d,]*)"
# The servers' own words, as their sources write them:
# - SGLang, sgl-project/sglang python/sglang/srt/managers/tokenizer_manager.py (`_validate_one_request`):
#   "The input ({n} tokens) is longer than the model's context length ({context_len} tokens)." and, for a
#   prompt with the reply asked for, "Requested token count exceeds the model's maximum context length of
#   {context_len} tokens. You requested a total of {t} tokens: {n} tokens from the input messages and {k}
#   tokens for the completion. ..."; its scheduler (python/sglang/srt/managers/utils.py,
#   `validate_input_length`): "Input length ({n} tokens) exceeds the maximum allowed length ({m} tokens)."
# - TGI, huggingface/text-generation-inference router/src/validation.rs (`ValidationError`, prefixed
#   "Input validation error: " by router/src/infer/mod.rs): "`inputs` tokens + `max_new_tokens` must be <=
#   {max_total_tokens}. Given: {n} `inputs` tokens and {k} `max_new_tokens`" and "`inputs` must have less
#   than {max_input_tokens} tokens. Given: {n}".
# - TabbyAPI, theroyallab/tabbyAPI common/errors.py (`validate_context_requirements`, since June 2026, sent
#   as `context_length_exceeded`): "Prompt length {n} exceeds the available context size of {max_seq_len}
#   tokens"; before it (backends/exllamav2/model.py, backends/base_model_container.py): "Prompt length {n} is
#   greater than max_seq_len {max_seq_len}". (Older versions answered a stream's overflow "Chat completion
#   aborted. Please check the server console.": nothing to read there.)
# - vLLM (vllm-project/vllm) and llama.cpp (ggml-org/llama.cpp tools/server) for comparison: the first
#   lines of each list.
_LIMIT_RE = re.compile("|".join((
    rf"maximum context length is {_N} tokens",  # OpenAI, DeepSeek, vLLM's server
    rf"available context size \({_N} tokens\)",  # llama.cpp server
    rf"maximum model length of {_N}",  # vLLM's engine
    rf"context length of only {_N} tokens",  # LM Studio
    rf"with {_N} maximum context length",  # Mistral
    rf"tokens > {_N} maximum",  # Anthropic
    rf"maximum number of tokens allowed \({_N}\)",  # Gemini
    rf"longer than the model's context length \({_N} tokens\)",  # SGLang
    rf"maximum context length of {_N} tokens",  # SGLang, with the reply asked for
    rf"exceeds the maximum allowed length \({_N} tokens\)",  # SGLang's scheduler
    rf"`inputs` tokens \+ `max_new_tokens` must be <= {_N}",  # TGI
    rf"`inputs` must have less than {_N} tokens",  # TGI, its --max-input-tokens
    rf"available context size of {_N} tokens",  # TabbyAPI
    rf"greater than max_seq_len {_N}",  # TabbyAPI before June 2026
)), re.IGNORECASE)
_USED_RE = re.compile("|".join((
    rf"resulted in {_N} tokens", rf"{_N} in the messages", rf"your request has {_N} input tokens",
    rf"prompt is too long: {_N} tokens", rf"request \({_N} tokens\) exceeds", rf"prompt \(length {_N}\)",
    rf"prompt length (?:of )?{_N}", rf"prompt contains {_N} tokens", rf"input token count \({_N}\)",
    rf"the input \({_N} tokens\)", rf"{_N} tokens from the input messages", rf"input length \({_N} tokens\)",
    rf"Given: {_N} `inputs` tokens", rf"`inputs` must have less than \d[\d,]* tokens\. Given: {_N}",
)), re.IGNORECASE)
_OVERFLOW_RE = re.compile("|".join((
    r"exceeds? the available context size", r"exceed_context_size", r"longer than the maximum model length",
    r"context length of only", r"maximum context length", r"prompt is too long", r"too large for model with",
    r"input token count \(\d", r"context_length_exceeded", r"longer than the model's context length",
    r"exceeds the maximum allowed length \(\d", r"`inputs` tokens \+ `max_new_tokens` must be <=",
    r"`inputs` must have less than \d", r"greater than max_seq_len",
)), re.IGNORECASE)
_OVERFLOW_STATUS = (400, 413, 422)
# The room for the answer a refusal counts beside the prompt: OpenAI's and vLLM's "(8000 in the messages, 950
# in the completion)", SGLang's "{k} tokens for the completion", TGI's "and {k} `max_new_tokens`".
_ROOM_RE = re.compile(rf"{_N} in the completion|{_N} tokens for the completion|and {_N} `max_new_tokens`",
                      re.IGNORECASE)


def _first(match: re.Match[str] | None) -> int | None:
    group = next((g for g in match.groups() if g), None) if match else None
    return int(group.replace(",", "")) if group else None


def figures(text: str) -> tuple[int | None, int | None]:
    """(the tokens of the refused prompt, the window's limit), each None where `text` does not say."""
    return _first(_USED_RE.search(text)), _first(_LIMIT_RE.search(text))


def answer_room(text: str, settings: Any = None) -> int:
    """The room for its answer the refused request asked for: its `max_tokens` (a summary request's),
    else what the refusal `text` counts for it (a server's own default); 0 for none, as the agent's
    main requests ask for none: the prompt alone was over the window."""
    asked = settings.get("max_tokens") if isinstance(settings, dict) else None
    return asked if type(asked) is int and asked > 0 else _first(_ROOM_RE.search(text)) or 0


def refusal_text(error: BaseException) -> str:
    """What a provider's refusal says: its message and its body (where the figures are)."""
    return f"{error} {getattr(error, 'body', '') or ''}"


def _status(error: BaseException) -> int | None:
    """The HTTP status of a refusal: its own, or for an error event in a stream that came with none
    (after the 200), the one its body names (TGI's `http_status_code`), else 400."""
    if isinstance(error, ModelHTTPError):
        return error.status_code
    if isinstance(error, ModelAPIError) and getattr(error, "in_stream", False):
        named = error.body.get("http_status_code") if isinstance(error.body, dict) else None
        return named if type(named) is int else 400
    return None


def as_overflow(error: BaseException) -> ModelContextWindowExceededError | None:
    """`error` when it is a context-window overflow; an HTTP refusal (400, 413 or 422), or an error
    event in a stream, whose words say it is one, as a `ModelContextWindowExceededError` (and a
    `ModelHTTPError` of its status, caused by `error`); in a group of errors, the one such (`_in_group`);
    None for anything else."""
    if isinstance(error, ModelContextWindowExceededError):
        return error
    if isinstance(error, BaseExceptionGroup):  # FallbackModel's, every model failed: one for length (below)
        return _in_group(error)
    status = _status(error)
    if status not in _OVERFLOW_STATUS or not isinstance(error, ModelAPIError):
        return None
    if not _OVERFLOW_RE.search(refusal_text(error)):
        return None
    overflow = ModelHTTPError.for_category(
        ModelContextWindowExceededError, status_code=status, model_name=error.model_name,
        body=error.body, provider_error_code=error.provider_error_code,
        provider_error_type=error.provider_error_type, in_stream=getattr(error, "in_stream", False))
    overflow.__cause__ = error
    return cast(ModelContextWindowExceededError, overflow)  # for_category makes it one


def _in_group(group: BaseExceptionGroup[Any]) -> ModelContextWindowExceededError | None:
    """The refusal for length among the errors of a group (pydantic-ai's `FallbackExceptionGroup`: each
    model of a `FallbackModel` failed, one of them as the prompt was too long for it), else None. Of
    several, the one naming the smallest limit: the window the compacted request must fit for every
    model that refused it (pydantic-ai's `FallbackModel.context_window` is the smallest of its models'
    too). Its `model_name` is the model that refused, which its line names when it is raised again."""
    found = [o for e in group.exceptions if (o := as_overflow(e)) is not None]
    return min(found, key=lambda o: figures(refusal_text(o))[1] or float("inf")) if found else None


@dataclass(frozen=True)
class LearnedWindow:
    """The server's limit (`window`), learned from a refusal or from prompts it cut, below the
    window the conversation was `given`, from `server` (as the host names it; None: not named)."""

    window: int
    given: int
    server: str | None = None

    def to_json(self) -> list[int | str]:
        return [self.window, self.given] if self.server is None else [self.window, self.given, self.server]

    @classmethod
    def from_json(cls, value: Any) -> LearnedWindow | None:
        """As saved: [window, given] (a server not named, or an older version's) or [window, given,
        server]; None for anything else (a file edited by hand)."""
        if not isinstance(value, list) or len(value) not in (2, 3):
            return None
        window, given, *server = value
        if (type(window) is int and type(given) is int and 0 < window < given
                and all(isinstance(s, str) for s in server)):
            return cls(window, given, server[0] if server else None)
        return None


def model_key(model: object) -> str:
    """Which model a window is of: its provider, name and endpoint, and the window pydantic-ai knows
    for it (two stand-ins of one name with different windows are two models)."""
    return (f"{getattr(model, 'system', '')}:{getattr(model, 'model_name', '')}@{getattr(model, 'base_url', None) or ''}"
            f"#{getattr(model, 'context_window', None)}")


@dataclass
class ModelWindows:
    """Whose window a conversation's limits are (`model`, a `model_key`; None before its first
    request), and what the other models it went to taught: each one's limit learned (`learned`) and
    its calibration (`calibrations`: its tokenizer's ratio to our estimate, what its usage reports
    told of cutting), taken back when the conversation goes back to it. `restored`: the model a limit
    taken back with the saved state was learned for, until the first request says which model this is."""

    model: str | None = None
    learned: dict[str, LearnedWindow] = field(default_factory=dict)
    calibrations: dict[str, Calibration] = field(default_factory=dict)
    restored: str | None = None

    def leave(self, learned: LearnedWindow | None, calibration: Calibration) -> None:
        """The conversation's requests go to another model: what the one in force taught is kept for it."""
        if self.model is None:
            return
        self.calibrations[self.model] = calibration
        if learned is not None:
            self.learned[self.model] = learned
        else:
            self.learned.pop(self.model, None)

    def copy(self, current: LearnedWindow | None) -> ModelWindows:
        """For another conversation: the limits learned (of the same servers), `current` the one of the
        model in force; not the calibrations, learned from this one's reports."""
        copied = ModelWindows(self.model, dict(self.learned))
        if self.model is not None and current is not None:
            copied.learned[self.model] = current
        return copied
