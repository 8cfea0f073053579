"""Wire-level pieces of the fake OpenAI server: token counting, request validation, payload builders.

Kept apart from the HTTP plumbing in `openai_server.py` so each rule can be read (and tested) on its own. Every
error message and body shape here mirrors what OpenAI (and DeepSeek, which copies it) sends, because the client
under test classifies errors by them: pydantic-ai maps `code == 'context_length_exceeded'` or a message containing
"maximum context length" to `ModelContextWindowExceededError`, `invalid_api_key` to `ModelAuthenticationError`, and
other 400s to `ModelRequestRejectedError` (see `pydantic_ai/_model_errors.py`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Literal

JSONDict = dict[str, Any]

ROLES = ("system", "developer", "user", "assistant", "tool")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TOKENS_PER_MESSAGE = 4
"""Per-message overhead, like the role/separator tokens real chat templates add."""


class WireError(Exception):
    """An HTTP error response to send instead of a completion: status, OpenAI-shaped body and extra headers.

    `stream_event`: what a streamed request gets instead, as a server that checks the request only once its
    stream is open sends it: an HTTP 200 whose one event is this error, then `[DONE]` (TGI's router does).
    """

    def __init__(self, status: int, body: JSONDict, headers: dict[str, str] | None = None,
                 stream_event: JSONDict | None = None) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        self.stream_event = stream_event


def error_body(
    message: str, *, type: str = "invalid_request_error", param: str | None = None, code: str | None = None
) -> JSONDict:
    """The `{"error": {...}}` envelope every OpenAI error uses."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def invalid(message: str, *, param: str | None = None, code: str | None = None) -> WireError:
    """A 400 `invalid_request_error`, the status and type OpenAI uses for every request it rejects as malformed."""
    return WireError(400, error_body(message, param=param, code=code))


def canonical(obj: object) -> str:
    """Canonical JSON (sorted keys, no whitespace), used to compare messages and bodies for equality."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------------------------- token counting


def message_text(message: JSONDict) -> str:
    """The text of a message's `content`: the string itself, or the joined `text` of its content parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") if isinstance(part, dict) else str(part)
            for part in content
            if isinstance(part, str) or (isinstance(part, dict) and isinstance(part.get("text"), str))
        )
    return ""


def _message_chars(message: JSONDict) -> int:
    chars = len(message_text(message)) + len(str(message.get("tool_call_id") or ""))
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        chars += len(str(call.get("id") or ""))
        chars += len(str(function.get("name") or "")) + len(str(function.get("arguments") or ""))
    return chars


def count_tokens(body: JSONDict, chars_per_token: float = 4.0) -> int:
    """Deterministic prompt token count of a chat request body.

    `ceil(chars / chars_per_token) + 4 * len(messages)`, where chars counts every message's content text (a string,
    or the text of its content parts), tool call ids, function names and argument strings, `tool_call_id`s, and
    the JSON of `tools`. Not a real tokenizer: tests need a count they can predict and steer, not an accurate one.
    """
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    chars = sum(_message_chars(m) for m in messages)
    if body.get("tools"):
        chars += len(json.dumps(body["tools"]))
    return math.ceil(chars / chars_per_token) + TOKENS_PER_MESSAGE * len(messages)


def completion_tokens(text: str, chars_per_token: float) -> int:
    """Tokens of generated output, counted like the prompt: `ceil(len(text) / chars_per_token)`."""
    return math.ceil(len(text) / chars_per_token)


# ------------------------------------------------------------------------------------------------- validation


def _require_content(message: JSONDict, i: int) -> None:
    content = message.get("content")
    if content is None:
        raise invalid(
            "Invalid value for 'content': expected a string, got null.", param=f"messages.[{i}].content"
        )
    if not isinstance(content, (str, list)):
        raise invalid(
            f"Invalid type for 'messages[{i}].content'.", param=f"messages[{i}].content", code="invalid_type"
        )
    if not content:
        raise invalid(
            f"Invalid 'messages[{i}].content': empty {'string' if isinstance(content, str) else 'array'}. "
            "Expected a value with minimum length 1.",
            param=f"messages[{i}].content",
            code="empty_string" if isinstance(content, str) else "empty_array",
        )


def _validate_tool_calls(message: JSONDict, i: int) -> list[str]:
    calls = message["tool_calls"]
    if not isinstance(calls, list) or not calls:
        raise invalid(f"Invalid 'messages[{i}].tool_calls': empty array.", param=f"messages[{i}].tool_calls")
    ids: list[str] = []
    for j, call in enumerate(calls):
        where = f"messages[{i}].tool_calls[{j}]"
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or not call.get("id") or call.get("type") != "function":
            raise invalid(
                f"Invalid '{where}': expected an object with 'id' and type 'function'.", param=where
            )
        if (
            not isinstance(function, dict)
            or not function.get("name")
            or not isinstance(function.get("arguments"), str)
        ):
            raise invalid(
                f"Invalid '{where}.function': expected 'name' and a string of JSON 'arguments'.",
                param=f"{where}.function",
            )
        ids.append(call["id"])
    return ids


def _unanswered(pending: list[str], answered: set[str], at: int) -> WireError:
    missing = ", ".join(i for i in pending if i not in answered)
    return invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        f"'tool_call_id'. The following tool_call_ids did not have response messages: {missing}",
        param=f"messages.[{at}].role",
    )


def validate_messages(messages: object) -> None:
    """Reject a `messages` list the real APIs reject, raising `WireError` for the first problem found.

    The tool-call pairing rules are the ones agents most often break after editing history (compaction!): every
    `tool` message must answer a call of the nearest preceding assistant message, and every call of an assistant
    message must be answered before the next non-tool message or the end of the list.
    """
    if not isinstance(messages, list):
        raise invalid(
            "Invalid type for 'messages': expected an array.", param="messages", code="invalid_type"
        )
    if not messages:
        raise invalid(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            param="messages",
            code="empty_array",
        )
    pending: list[str] = []  # tool_call ids of the nearest preceding assistant message (empty: none open)
    answered: set[str] = set()
    opened_at = 0
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            role = message.get("role") if isinstance(message, dict) else message
            raise invalid(
                f"Invalid value: {role!r}. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.",
                param=f"messages[{i}].role",
                code="invalid_value",
            )
        role = message["role"]
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not call_id or call_id not in pending:
                raise invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                    "with 'tool_calls'.",
                    param=f"messages.[{i}].role",
                )
            if not isinstance(message.get("content"), (str, list)):
                raise invalid(f"Invalid type for 'messages[{i}].content'.", param=f"messages[{i}].content")
            answered.add(call_id)
            continue
        if any(p not in answered for p in pending):
            raise _unanswered(pending, answered, opened_at)
        pending, answered = [], set()
        if role == "assistant":
            if message.get("tool_calls") is not None:
                pending, opened_at = _validate_tool_calls(message, i), i
            elif not message.get("content"):
                raise invalid(
                    f"Invalid value for 'content': expected a string, got {message.get('content')!r}.",
                    param=f"messages.[{i}].content",
                )
        else:
            _require_content(message, i)
    if any(p not in answered for p in pending):
        raise _unanswered(pending, answered, opened_at)


REASONING_NOT_SENT_BACK = "The `reasoning_content` in the thinking mode must be passed back to the API."
"""DeepSeek's words for a thinking-mode request whose tool-calling assistant message lacks its reasoning."""


def check_reasoning_sent_back(messages: list[JSONDict]) -> None:
    """DeepSeek's thinking mode: the `reasoning_content` of an assistant message that made tool calls "must be
    passed back to the API in all subsequent requests", or it answers 400 (its thinking-mode guide). The field
    must be there; empty counts as there (pydantic-ai's DeepSeek profile sends it empty where it has none, and
    DeepSeek takes that). Every turn's calls are checked, as the guide says; pydantic-ai records DeepSeek refusing
    only those after the last user message (its 'auto' mode backfills only those): the stricter rule, so that
    what passes here passes there. Call after `validate_messages`, which has checked the shapes."""
    for message in messages:
        if message.get("role") == "assistant" and message.get("tool_calls") and not isinstance(
            message.get("reasoning_content"), str
        ):
            raise invalid(REASONING_NOT_SENT_BACK, code="invalid_request_error")


ROLES_MUST_ALTERNATE = ("After the optional system message, conversation roles must alternate "
                        "user/assistant/user/assistant/...")
"""The words of a chat template that requires user and assistant turns to alternate (Mistral's
tool-calling templates on the Hugging Face hub, tokenizer_config.json of Mistral-7B-Instruct-v0.3),
which vLLM applies to every request and answers as a 400 when it raises."""


def check_roles_alternate(messages: list[JSONDict], as_llama_cpp: bool = False) -> None:
    """A server applying such a template: after the system messages, the user messages and the
    assistant messages without tool calls must alternate, starting with a user message (tool
    messages and assistant messages that call tools are passed over, as that template does).
    vLLM answers the template's exception as a 400; llama.cpp's server (`as_llama_cpp`) as a 500, in
    its own error shape, which the SDKs retry unless told not to."""
    turns = [m.get("role") for m in messages if m.get("role") in ("user", "assistant") and not m.get("tool_calls")]
    if any((role == "user") != (i % 2 == 0) for i, role in enumerate(turns)):
        if as_llama_cpp:
            raise WireError(500, {"error": {"code": 500, "message": ROLES_MUST_ALTERNATE, "type": "server_error"}})
        raise WireError(400, {"object": "error", "type": "BadRequestError", "param": None, "code": 400,
                              "message": ROLES_MUST_ALTERNATE})


def validate_tools(body: JSONDict) -> None:
    """Check `tools`, `tool_choice` and `stream_options` the way OpenAI does."""
    tools = body.get("tools")
    names: set[str] = set()
    if tools is not None:
        if not isinstance(tools, list):
            raise invalid("Invalid type for 'tools': expected an array.", param="tools", code="invalid_type")
        for j, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(name, str):
                raise invalid(
                    f"Missing required parameter: 'tools[{j}].function'.", param=f"tools[{j}].function"
                )
            if not _TOOL_NAME.match(name):
                raise invalid(
                    f"Invalid 'tools[{j}].function.name': string does not match pattern. "
                    "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                    param=f"tools[{j}].function.name",
                    code="invalid_value",
                )
            names.add(name)
    choice = body.get("tool_choice")
    if choice is not None and choice != "none" and not tools:
        raise invalid(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
            param="tool_choice",
        )
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if name not in names:
            raise invalid(
                f"Invalid value for 'tool_choice': no function named {name!r} was specified in 'tools'.",
                param="tool_choice",
            )
    if body.get("stream_options") is not None and not body.get("stream"):
        raise invalid(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.", param="stream_options"
        )


OverflowStyle = Literal["openai", "llama.cpp", "vllm", "sglang", "tgi", "tabby"]
"""Whose words a refused prompt gets: OpenAI's (`context_length_exceeded`, which pydantic-ai classifies as
`ModelContextWindowExceededError`), llama.cpp server's (`exceed_context_size_error`, with the prompt's and the
window's sizes as fields) or vLLM's engine's ("longer than the maximum model length"), which pydantic-ai leaves a
plain HTTP 400; SGLang's (a 400, `TokenizerManager._validate_one_request` in sgl-project/sglang's
python/sglang/srt/managers/tokenizer_manager.py), text-generation-inference's (`ValidationError::MaxTotalTokens` in
huggingface/text-generation-inference's router/src/validation.rs: a 422 `{"error", "error_type": "validation"}`, or
to a streamed request a 200 whose one event is `{"error": {"message", "http_status_code": 422}}`,
`InferError::into_openai_event` in router/src/infer/mod.rs) or TabbyAPI's (a 400 `{"detail": ...}` as
theroyallab/tabbyAPI's backends/base_model_container.py `validate_context_length` wrote it in June 2026)."""


def check_window(prompt_tokens: int, body: JSONDict, window: int, style: OverflowStyle = "openai") -> None:
    """Reject a prompt that, with the requested completion budget, doesn't fit the context window.

    Same code and wording as OpenAI by default: pydantic-ai turns this into `ModelContextWindowExceededError`.
    llama.cpp's server checks the prompt alone, and refuses one that fills its slot's context: `n_tokens() >=
    n_ctx` (tools/server/server-context.cpp); the `max_tokens` asked for only caps what it writes, which stops
    where the context is full.
    """
    budget = body.get("max_completion_tokens") or body.get("max_tokens") or 0
    if (prompt_tokens < window) if style == "llama.cpp" else (prompt_tokens + budget <= window):
        return
    if style == "llama.cpp":
        raise WireError(400, {"error": {
            "code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": prompt_tokens, "n_ctx": window,
            "message": f"request ({prompt_tokens} tokens) exceeds the available context size ({window} tokens), "
                       "try increasing it"}})
    if style == "vllm":
        raise WireError(400, {"object": "error", "type": "BadRequestError", "param": None, "code": 400,
                              "message": f"The decoder prompt (length {prompt_tokens + budget}) is longer than the "
                                         f"maximum model length of {window}. Make sure that `max_model_len` is no "
                                         "smaller than the number of text tokens."})
    if style == "sglang":
        raise WireError(400, {"object": "error", "type": "BadRequestError", "param": None, "code": 400,
                              "message": f"The input ({prompt_tokens} tokens) is longer than the model's context "
                                         f"length ({window} tokens)."})
    if style == "tgi":
        # With no `max_new_tokens` asked for, TGI takes what the window leaves: none here.
        said = (f"Input validation error: `inputs` tokens + `max_new_tokens` must be <= {window}. Given: "
                f"{prompt_tokens} `inputs` tokens and {budget} `max_new_tokens`")
        raise WireError(422, {"error": said, "error_type": "validation"},
                        stream_event={"error": {"message": said, "http_status_code": 422}})
    if style == "tabby":
        raise WireError(400, {"detail": f"Prompt length {prompt_tokens} is greater than max_seq_len {window}"})
    if budget:
        message = (
            f"This model's maximum context length is {window} tokens. However, you requested "
            f"{prompt_tokens + budget} tokens ({prompt_tokens} in the messages, {budget} in the completion). "
            "Please reduce the length of the messages or completion."
        )
    else:
        message = (
            f"This model's maximum context length is {window} tokens. However, your messages resulted in "
            f"{prompt_tokens} tokens. Please reduce the length of the messages."
        )
    raise invalid(message, param="messages", code="context_length_exceeded")


# --------------------------------------------------------------------------------------------------- payloads


def usage_payload(
    prompt: int, completion: int, cached: int, reasoning: int, override: JSONDict | None
) -> JSONDict:
    """OpenAI usage plus DeepSeek's `prompt_cache_hit_tokens`/`prompt_cache_miss_tokens`; `override` wins.

    Nested dicts in `override` are merged one level deep; `total_tokens` follows the (possibly overridden)
    prompt and completion counts unless overridden itself.
    """
    usage: JSONDict = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": reasoning, "audio_tokens": 0},
        "prompt_cache_hit_tokens": cached,
        "prompt_cache_miss_tokens": prompt - cached,
    }
    for key, value in (override or {}).items():
        usage[key] = (
            {**usage[key], **value} if isinstance(value, dict) and isinstance(usage.get(key), dict) else value
        )
    if "total_tokens" not in (override or {}):
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return usage


def pieces(text: str, n: int = 3) -> list[str]:
    """Split `text` into at most `n` non-empty consecutive pieces, deterministically (streams send deltas)."""
    if not text:
        return []
    size = max(1, math.ceil(len(text) / n))
    return [text[i : i + size] for i in range(0, len(text), size)]
