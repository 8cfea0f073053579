"""Summarizers for replays: a deterministic stand-in of realistic size, or a real model.

Replaying thousands of requests must not need a key or cost money, and a comparison must not hinge
on one model's mood, so by default every strategy's summary calls are answered by the same
deterministic stand-in. Its size follows what agents really produce — about 3% of its input,
between 4K and 16K characters (Claude Code's recorded summaries are 12-15K characters for ~170K
token contexts) — and its content is what a good summary keeps: the messages a person typed (newest
first within 45% of the budget, each cut to 300 characters), every file changed (newest first
within 30% of the largest summary, 4,800 characters, whatever the input's size: a summary names the
files it changed), the files read, the current work and the last request,
then a log of tool calls filling the rest. User messages and changed files listed by an earlier
stand-in summary or notes are carried forward, as a model reading them would.

This makes retention a measure of what a strategy *keeps around* the summary (verbatim user
messages, restored files, a tail) plus what a summary of that size can hold, not of summary
quality; `--model` replaces the stand-in with a real model for that.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence

from pydantic_ai.exceptions import ModelContextWindowExceededError, UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from .retention import EDIT_TOOLS, changed_paths, message_text, typed_texts
from .simulate import Summarize

SHARE = 0.03
MIN_CHARS = 4_000
MAX_CHARS = 16_000
USER_SHARE = 0.45
FILE_SHARE = 0.30
USER_CUT = 300
_CARRIED = re.compile(r"^- USER: (.*)$", re.M)
_CARRIED_FILE = re.compile(r"^- CHANGED: (.*)$", re.M)
READ_TOOLS = frozenset({"read", "read_file", "view"})
CODE_CHARS = 600


def target_chars(input_chars: int) -> int:
    return max(MIN_CHARS, min(MAX_CHARS, round(SHARE * input_chars)))


def _line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _users(messages: Sequence[ModelMessage], harness: frozenset[str] = frozenset()) -> list[str]:
    """The typed messages a summary lists: those an earlier one carried, then the person's own (not
    what the transcript's format marks as its harness's: hook context, a text-format agent's command
    output answering the model)."""
    carried: list[str] = []
    for m in messages:
        carried += _CARRIED.findall(message_text(m))
    out: list[str] = []
    for u in carried + [_line(u, USER_CUT) for u in typed_texts(messages, harness)]:
        if u not in out:
            out.append(u)
    return out


def _read_paths(messages: Sequence[ModelMessage]) -> list[str]:
    out: list[str] = []
    for m in messages:
        if isinstance(m, ModelResponse):
            for p in m.parts:
                if isinstance(p, ToolCallPart) and p.tool_name.lower() in READ_TOOLS:
                    args = p.args if isinstance(p.args, dict) else {}
                    path = args.get("file_path") or args.get("path")
                    if isinstance(path, str) and path not in out:
                        out.append(path)
    return out


def _work_log(messages: Sequence[ModelMessage]) -> list[str]:
    results = {p.tool_call_id: p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)}
    lines: list[str] = []
    for m in messages:
        if not isinstance(m, ModelResponse):
            continue
        for p in m.parts:
            if isinstance(p, ToolCallPart):
                args = p.args if isinstance(p.args, str) else json.dumps(p.args, ensure_ascii=False)
                ret = results.get(p.tool_call_id)
                first = str(ret.content).strip().splitlines()[0] if ret is not None and str(ret.content).strip() else ""
                lines.append(f"- {p.tool_name}({_line(args, 100)}) -> {_line(first, 100)}")
            elif isinstance(p, TextPart) and p.content.strip():
                lines.append(f"- said: {_line(p.content, 200)}")
    return lines


def _root(paths: Sequence[str]) -> str:
    """The project's folder: the deepest folder every absolute path shares (two levels at least)."""
    absolute = [p for p in paths if p.startswith("/")]
    if len(absolute) < 2:
        return ""
    common = os.path.commonpath(absolute)
    return common if common.count("/") >= 2 else ""


def _relative(path: str, root: str) -> str:
    return path[len(root) + 1:] if root and path.startswith(root + "/") else path


def _relative_all(text: str, root: str) -> str:
    return text.replace(root + "/", "") if root else text


def _latest_code(messages: Sequence[ModelMessage]) -> str:
    """The new text of the newest edit or write: the code snippet of the current work."""
    for m in reversed(messages):
        if isinstance(m, ModelResponse):
            for p in reversed(m.parts):
                if isinstance(p, ToolCallPart) and p.tool_name.lower() in EDIT_TOOLS:
                    args = p.args if isinstance(p.args, dict) else {}
                    code = args.get("new_string") or args.get("content") or args.get("new_str")
                    if isinstance(code, str) and code.strip():
                        return code
    return "none"


def standin_summary(messages: Sequence[ModelMessage], harness: frozenset[str] = frozenset()) -> str:
    """A deterministic `<analysis>` + `<summary>` reply of realistic size (see the module docstring);
    `harness`: the transcript's texts its format marks as not typed (`Transcript.harness_texts`)."""
    target = target_chars(sum(len(message_text(m)) for m in messages))
    users = _users(messages, harness)
    picked, changed, read, last_text = _material(messages, users, target)
    root = _root([*read, *changed])
    body = [
        "1. Primary Request and Intent: " + _line(users[0] if users else "(none recorded)", 600),
        "3. Files and Code Sections: read: " + _line(", ".join(_relative(p, root) for p in read) or "none",
                                                     target // 20) + "; changed:",
        *[f"- CHANGED: {f}" for f in changed],
        "6. All User Messages (newest first):",
        *[f"- USER: {u}" for u in picked],
        "8. Current Work: " + _line(last_text, 600),
        "Latest code: " + _line(_latest_code(messages), CODE_CHARS),
        "9. Next Step: continue with the latest request: " + _line(users[-1] if users else "", USER_CUT),
        "Work log:",
    ]
    head = "<analysis>Stand-in summary: deterministic, written without a model.</analysis>\n<summary>\n"
    text = head + "\n".join(body)
    log = [_relative_all(line, root) for line in _work_log(messages)]
    room = target - len(text) - len("\n</summary>")
    tail: list[str] = []
    for line in reversed(log):  # the newest work matters most
        if room - len(line) - 1 < 0:
            break
        tail.append(line)
        room -= len(line) + 1
    text += "".join("\n" + line for line in reversed(tail))
    return text + "\n</summary>"


async def standin_summarize(messages: list[ModelMessage], prompt: str, *,
                            harness: frozenset[str] = frozenset()) -> str:
    return standin_summary(messages, harness)


_BUDGET = re.compile(r"Stay under about (\d+) tokens")


def standin_notes(messages: Sequence[ModelMessage], prompt: str, harness: frozenset[str] = frozenset()) -> str:
    """Session notes in the fixed sections, as the notes model would keep them: the same content and
    size rule as the stand-in summary, within the token budget the request names."""
    from ..context.compaction.notes import SECTIONS

    found = _BUDGET.search(prompt)
    target = target_chars(sum(len(message_text(m)) for m in messages))
    if found:
        target = min(target, 4 * int(found.group(1)))
    users = _users([*messages, ModelResponse(parts=[TextPart(prompt)])], harness)
    picked, changed, read, last_text = _material(messages, users, target)
    body = {
        SECTIONS[0]: _line(users[0] if users else "(none recorded)", 600),
        SECTIONS[1]: "\n".join(f"- USER: {u}" for u in picked) or "_(nothing yet)_",
        SECTIONS[2]: "read: " + _line(", ".join(read) or "none", target // 20) + "; changed:"
        + "".join(f"\n- CHANGED: {f}" for f in changed),
        SECTIONS[3]: "_(nothing yet)_",
        SECTIONS[4]: "_(nothing yet)_",
        SECTIONS[5]: _line(last_text, 600) or "_(nothing yet)_",
        SECTIONS[6]: "- continue with the latest request: " + _line(users[-1] if users else "", USER_CUT),
    }
    text = "<notes>\n" + "\n\n".join(f"# {k}\n{v}" for k, v in body.items())
    room = target - len(text) - len("\n</notes>")
    log: list[str] = []
    for line in reversed(_work_log(messages)):
        if room - len(line) - 1 < 0:
            break
        log.append(line)
        room -= len(line) + 1
    head, sep, tail = text.partition(f"# {SECTIONS[6]}")
    return head + "".join(line + "\n" for line in reversed(log)) + "\n" + sep + tail + "\n</notes>"


class ModelFailed(RuntimeError):
    """A request to the `--model` model failed for a reason no strategy caused (the endpoint cannot
    be reached, the key or the model name is refused, the server fails on every retry): the figures
    would rest on summaries that were never written, so the analysis stops and says why."""


class WatchedModel(WrapperModel):
    """The `--model` model, keeping its first failure. Strategies take a failed summary for a failed
    compaction and go on, which is right for what a model answers (a request too long, a reply with
    no summary in it) and wrong for a model that cannot be used; and each of thousands of
    compactions would wait out the retries again. After a failure every request fails at once.
    `listed`: a server given with --base-url, whose 404 for the model is noted with the models it
    lists, for the line to name them as the agent's does (served_models.py)."""

    def __init__(self, wrapped: Model, *, listed: bool = False) -> None:
        super().__init__(wrapped)
        self.failure: Exception | None = None
        self.listed = listed

    async def request(self, messages: list[ModelMessage], model_settings: ModelSettings | None,
                      model_request_parameters: ModelRequestParameters) -> ModelResponse:
        if self.failure is not None:
            raise ModelFailed("the summary model failed earlier in this analysis")
        try:
            return await super().request(without_keys(messages), model_settings, model_request_parameters)
        except (ModelContextWindowExceededError, UnexpectedModelBehavior):
            raise  # the model's answer: a failed compaction, as the live agent would meet it
        except Exception as e:
            self.failure = e
            if self.listed:  # a name a little off the one the server registered: the line names those it has
                from ..agent.run.served_models import note_served

                await note_served(e, self.wrapped)
            raise


def without_keys(messages: list[ModelMessage]) -> list[ModelMessage]:
    """`messages` with every registered key redacted: a transcript may hold the very key the
    `--model` requests are made with (pasted into a session, printed by a command), and the key
    reaches no model request. The messages themselves when none holds one (the usual case)."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    from ..context.plumbing import secrets

    raw = ModelMessagesTypeAdapter.dump_json(messages)
    clean = secrets.redact_bytes(raw)
    return messages if clean == raw else ModelMessagesTypeAdapter.validate_json(clean)


def model_summarizer(name: str, *, base_url: str | None = None, api_key: str | None = None,
                     max_retries: int = 2, timeout_s: float = 600.0) -> Summarize:
    """Summary calls made by a real model (`--model`, at `--base-url` with `--api-key` if given);
    raises ConfigError when it cannot be built (no key)."""
    from ..agent.run.summary_wording import CODING
    from ..context.compaction.summarizer import SharedPrefixSummarizer
    from ..models import build_model

    return SharedPrefixSummarizer(WatchedModel(build_model(name, base_url=base_url, api_key=api_key,
                                                           max_retries=max_retries, timeout_s=timeout_s),
                                               listed=base_url is not None), assistant=CODING.assistant)


def model_failure(summarize: Summarize | None) -> ModelFailed | None:
    """The one-line error for a `--model` summarizer whose model failed, or None."""
    from ..error_text import describe_error

    model = getattr(summarize, "model", None)
    if not isinstance(model, WatchedModel) or model.failure is None:
        return None
    return ModelFailed(f"summary calls through --model {model.model_name} failed, so the analysis stopped: "
                       f"{describe_error(model.failure, retry_hint='')}")


def _material(messages: Sequence[ModelMessage], users: list[str], target: int
              ) -> tuple[list[str], list[str], list[str], str]:
    """What both stand-in replies draw on: the newest user messages that fit their share of
    `target`, the changed paths (carried ones included) within theirs, the only-read paths, and the
    assistant's last words."""
    picked: list[str] = []
    used = 0
    for u in reversed(users):
        if used + len(u) + 9 > USER_SHARE * target:
            break
        picked.append(u)
        used += len(u) + 9
    carried: list[str] = []
    for m in messages:
        carried += _CARRIED_FILE.findall(message_text(m))
    # Each path at its latest change, oldest first.
    every = list(reversed(dict.fromkeys(reversed([*carried, *changed_paths(messages)]))))
    changed: list[str] = []
    used = 0
    for path in reversed(every):  # the newest changes first, within their share
        if used + len(path) + 12 > FILE_SHARE * MAX_CHARS:
            break
        changed.append(path)
        used += len(path) + 12
    read = [p for p in _read_paths(messages) if p not in every]
    last_text = next((p.content for m in reversed(messages) if isinstance(m, ModelResponse)
                      for p in m.parts if isinstance(p, TextPart) and p.content.strip()), "")
    return picked, changed, read, last_text
