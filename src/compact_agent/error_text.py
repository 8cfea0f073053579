"""The one-line error texts: `describe_error` for any error a turn can end with, `unusable_model` for
a model we call for ourselves. What they find under an exception's surface (the transport error an
SDK wrapped, the `retry-after` a provider asked for, the address tried) is error_causes.py; the notes
a session adds to an error (where the request limit, the model and the endpoint were chosen) are
error_notes.py; Python warnings from libraries as lines of ours are warning_lines.py.

The command line and the UI (REPL, print mode) both use these, so they live below both; every
import of agent or SDK code is late: --version and --help load none of it."""

from __future__ import annotations

import json
import re
from typing import Any

from .error_causes import (
    after_retries,
    caused_by,
    clipped,
    endpoint,
    key_from,
    proxy_unreached,
    reply_cut,
    reply_no_events,
    reply_not_json,
    reply_unreadable,
    retry_after,
    sent_no_key,
)
from .error_causes import connection_reason as connection_reason  # the agent's other lines ask here
from .error_causes import first_line as first_line
from .error_notes import (
    address_named,
    endpoint_given,
    in_repl,
    limit_chosen_by,
    model_note,
    served_ids,
    served_words,
)


def no_key_line(at: str) -> str:
    """A --base-url server (`at`: " at URL") refused a request sent without a key: what to give, by
    the variable read (never the key: there was none)."""
    from .models import KEY_VARIABLE

    return f"no API key was sent and the endpoint{at} wants one: give --api-key or set {KEY_VARIABLE['openai']}"


#: How the line of an error the same request would get again (an HTTP 400: a parameter, a content
#: the model does not take) ends: the session and the message are saved, no retry is offered, and
#: what could change is: what the provider's message names, or the message itself.
KEPT = ("; the session is saved with your message; sent as it is, it would be refused again: change what the "
        "provider's message names (/model switches the model), or /rewind takes your message back to edit")


#: How the REPL's line for a key the provider rejected ends: the key is read as the program starts,
#: so sending the message again would send the same key.
KEY_KEPT = "; the session is saved with your message: `compact-agent -c` with that key goes on from it"


def another_key(source: str) -> str:
    """Give another key where the rejected one came from (`key_from`: ` from OPENAI_API_KEY`, ` given
    with --api-key`, empty where no request says); the line gave an HTTP 400's advice (--model, a setting)."""
    from .models import KEY_VARIABLE

    if source.startswith(" from "):
        variable = source.removeprefix(" from ")
        return f"give another key: set {variable} to a key the provider takes, or pass one with --api-key"
    if source:
        return "give another key with --api-key"
    names = sorted(KEY_VARIABLE.values())
    return f"give another key with --api-key, or in the provider's variable ({', '.join(names[:-1])} or {names[-1]})"


#: How the REPL's error lines end for a failure worth retrying: the message stays in the session,
#: unanswered, and sending its very text again retries its turn (agent/run/unfinished.py).
RETRY = "; the session is saved with your message: send it again (↑ Enter) to retry"
#: After a turn failed once the model's tools had run: sent again, the message would run them again.
GO_ON = ("; the session is saved with what the tools did: send 'go on' to continue from there (the same message "
         "again would run them again)")


def describe_error(e: BaseException, retry_hint: str | None = None, kept_hint: str | None = None) -> str:
    """One line for any error a turn can end with; never quoting the API key (a provider may echo it).

    `retry_hint` ends the lines of errors worth retrying (the REPL's default: `RETRY`);
    `kept_hint` those of errors a retry would only repeat (default KEPT; none where `retry_hint` is "")."""
    from . import secrets

    return secrets.hide_url_passwords(secrets.redact(_describe_error(e, retry_hint, kept_hint)))


def _describe_error(e: BaseException, retry_hint: str | None = None, kept_hint: str | None = None) -> str:
    from pydantic_ai.exceptions import (
        ModelAPIError,
        ModelAuthenticationError,
        ModelConnectionError,
        ModelContextWindowExceededError,
        ModelHTTPError,
        UnexpectedModelBehavior,
        UsageLimitExceeded,
    )

    from .agent.run.retry import is_timeout
    from .agent.run.unsaved_answer import SHOWN, AnswerNotSaved, CallsNotSaved, not_saved_line
    from .context import HistoryNotSaved, WindowTooSmallError
    from .context.plumbing.refusal import NoRoomForConversation
    from .deadline import StreamCut
    from .models import ConfigError
    from .session.store import SessionError
    from .window_words import in_agent_words

    saved = retry_hint if retry_hint is not None else RETRY
    kept = kept_hint if kept_hint is not None else ("" if retry_hint == "" else KEPT)
    if isinstance(e, ModelAuthenticationError):
        if sent_no_key(e):
            return no_key_line(endpoint(e))
        source = key_from(e)  # the key named by where it came from, and the advice to give another there
        line = then(f"the provider rejected the API key{source}{endpoint(e)}: {_provider_message(e)}",
                    f"; {another_key(source)}")
        if kept_hint is None and retry_hint != "":  # the REPL (GO_ON too), whose key is the one it started with
            return line + KEY_KEPT
        return line + (saved if kept else "")  # print mode: `-c -p` with the other key goes on
    if caused_by(e, StreamCut):
        return then("the provider's reply was cut off mid-stream; what arrived is saved, marked as cut", saved)
    if (cut := reply_cut(e)) is not None:
        return then(cut, saved)
    if isinstance(e, ModelConnectionError) and is_timeout(e):
        return then(f"the model endpoint{endpoint(e)} did not answer in time{after_retries(e)} (raise "
                    f"COMPACT_AGENT_REQUEST_TIMEOUT_S for a slow local model)", saved)
    if isinstance(e, ModelConnectionError):
        reason, advice = connection_reason(e)
        return then(proxy_unreached(e, reason) or f"cannot reach the model endpoint{endpoint(e)} ({reason}); "
                    f"{advice or 'check the network and that the server there is up'}{endpoint_given(e)}", saved)
    if isinstance(e, WindowTooSmallError):  # the library's advice, in the command line's words
        return in_agent_words(first_line(e))
    if isinstance(e, AnswerNotSaved):  # the REPL (no kept_hint) streamed it; print mode says its own (print_unsaved.py)
        return not_saved_line(_describe_error(e.error), SHOWN if kept_hint is None else "")
    if isinstance(e, CallsNotSaved):  # the REPL (no kept_hint) keeps them; -p's --continue goes on without them
        return e.line(_describe_error(e.error), kept=kept_hint is None)
    if isinstance(e, HistoryNotSaved):  # the library's words are of a store: the session's here
        if e.step == "append":  # the session file's own words name the file and say what is intact
            why = first_line(e.cause)
            return why if isinstance(e.cause, SessionError) else f"could not save the session: {why}"
        return (f"could not save the session: {first_line(e.cause)} (what the session file held is archived "
                "there before the file is rewritten with the conversation as it is now); the file keeps what "
                "was saved before, no request went out unsaved, and the next message tries again")
    if isinstance(e, ModelContextWindowExceededError):  # the server's window is the limit: never a larger one given
        if isinstance(e, NoRoomForConversation):  # its fixed part alone: no compaction helps (refusal.py)
            return in_agent_words(first_line(e))
        from .context.plumbing.overflow import figures, refusal_text

        limit = figures(refusal_text(e))[1]  # works within it already; "shrunk": a failed compaction made none
        return (f"the request is too long for the server's window{f' of {limit:,} tokens' if limit else ''} and "
                "could not be shrunk to fit it; " + ("use a" if limit else "give --context-window the server's own, "
                                                     "or use a") + " model or server with a larger window")
    if isinstance(e, ModelHTTPError):
        detail = _provider_message(e)
        if web_page(getattr(e, "body", None)) is not None and e.status_code in NO_API:
            return then(f"the model endpoint{endpoint(e)} answered HTTP {e.status_code} with a web page, not an "
                        f"API's error ({detail})", f"; check that {address_named(e)} is the server's API address (it "
                        "often ends in /v1)")
        if e.status_code == 429:
            wait = retry_after(e)
            if wait is not None and wait > 120:  # the SDK does not wait that long: it did not retry
                return (f"the provider is rate-limiting requests (HTTP 429) and asks to wait {wait:,.0f} s; "
                        f"try again later: {detail}")
            return then(f"the provider is rate-limiting requests (HTTP 429){after_retries(e)}: {detail}", saved)
        if e.status_code >= 500:
            return then(f"the provider failed (HTTP {e.status_code}){after_retries(e)}: {detail}", saved)
        if e.status_code == 404:
            return not_found(e, endpoint(e))
        if e.status_code in (408, 409):  # passing, as 429 and 5xx are: the SDK retried them
            return then(f"the provider answered HTTP {e.status_code}{after_retries(e)}: {detail}", saved)
        return then(f"the provider answered HTTP {e.status_code}: {detail}", kept)
    if (not_json := reply_not_json(e)) is not None:
        return then(f"{not_json} on every try, and nothing of it was kept", saved)
    if (unreadable := reply_unreadable(e)) is not None:
        return then(unreadable, saved)
    if isinstance(e, ModelAPIError):
        body = getattr(e, "body", None)  # an error event in a stream: the SDK's message is the body's repr
        why = _provider_message(e) if body is not None and str(e).strip() == str(body).strip() else first_line(e)
        return then(f"model request failed{after_retries(e)}: {why}", saved)
    if isinstance(e, UnexpectedModelBehavior):
        if "exceeded max retries" in str(e):  # pydantic-ai's hint names a setting we do not have
            said = re.search(r"Tool '([^']+)' exceeded max retries count of (\d+)", str(e))
            which = (f"{said[1]}, {int(said[2]) + 1} times in a row" if said  # its words, not pydantic-ai's
                     else first_line(e).split('. ')[0])
            return then(f"the model kept making malformed tool calls ({which}); the turn stopped", saved)
        if (empty := re.match(r"Exceeded maximum output retries \((\d+)\)", str(e))) is not None:
            # pydantic-ai's words for replies with nothing to use, asked again each time: what came back
            return then(f"the model's reply had no answer and no tool call ({int(empty[1]) + 1} times in a row: "
                        "an empty reply, or its reasoning alone); the turn stopped", saved)
        if (none := reply_no_events(e)) is not None:
            return then(none, f"; check that {address_named(e)} is the server's API address (it often ends in /v1)" + saved)
        return f"the model replied with something unusable: {first_line(e).split(' Consider ')[0]}"
    if isinstance(e, UsageLimitExceeded):  # the turn's work is kept: going on, not retrying, is what is left
        go_on = retry_hint if retry_hint is not None else "; the work so far is saved, send a message to go on"
        return max_turns_message(e, go_on) or first_line(e)
    if isinstance(e, FileExistsError) and e.filename:  # mkdir where a file is: what to do about it
        from .session.files import in_the_way

        return in_the_way(e.filename)
    if isinstance(e, NotADirectoryError) and e.filename:
        return f"cannot use {e.filename}: part of that path is not a folder"
    if isinstance(e, OSError) and e.strerror and e.filename:  # "No such file or directory: /proc/1/projects"
        return f"{e.strerror}: {e.filename}"
    if isinstance(e, OSError) and e.strerror:  # "Read-only file system: /home/u/.local/...", no [Errno 30]
        return f"{e.strerror}: {e.filename}" if e.filename else e.strerror  # a FileNotFoundError too: no [Errno 2]
    if isinstance(e, (ConfigError, SessionError, FileNotFoundError, PermissionError)):
        return first_line(e)
    return first_line(e)  # the message, never the exception's class name


def max_turns_message(e: BaseException, saved: str = "") -> str | None:
    """Our words for pydantic-ai's request limit (its message points at its own docs), with where the
    limit came from (`note_request_limit`), or None when `e` is another usage limit."""
    import re

    m = re.search(r"request_limit of (\d+)", str(e))
    if m is None:
        return None
    n = int(m.group(1))
    whence = limit_chosen_by(e, n)
    return then(f"stopped after {n} model request{'s' if n != 1 else ''} ({whence})", saved)


def then(text: str, hint: str) -> str:
    """`text` and a hint that goes on the line (`"; the session is saved, ..."`), joined as one
    sentence goes on: a provider's message often ends a sentence of its own (`Please try again
    later.`), and `.;` or `?;` reads as a typo. After a full stop the hint takes its place; after
    `?` or `!` it starts a sentence of its own."""
    if not hint.startswith("; "):
        return text + hint
    body = text.rstrip()
    if body.endswith(".") and not body.endswith(".."):
        return body[:-1] + hint
    if body.endswith(("?", "!", "…", "...")):
        rest = hint[2:]
        return f"{body} {rest[:1].upper()}{rest[1:]}"
    return text + hint


def _provider_message(e: BaseException, fallback: str | None = None) -> str:
    """The provider's own error message (OpenAI/Anthropic bodies), not the exception's repr;
    `fallback` (if given) where the body holds none (an empty reply, a page that is no API's).
    Without one, what the body is, as the server wrote it: a page's text, or JSON as JSON — the
    SDK's words were `status_code: 400, model_name: m, body: ['a', 'b']`, the body as Python
    writes it."""
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        inner = error if isinstance(error, dict) else body
        message = inner.get("message", inner.get("detail"))  # `detail`: a bare FastAPI server
        if isinstance(message, str) and message.strip():
            return clipped(message)
        if isinstance(message, list) and (listed := _validation_errors(message)):
            return listed
    if fallback is not None:
        return fallback
    if body is None or body == "" or body == {}:
        return "no error message"
    if (page := web_page(body)) is not None:
        return page
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return clipped(text)


#: Statuses a web server that is no model API answers a POST with (a site, a web UI's port): its
#: page said whole, tags and all, as 'the provider failed (HTTP 501), after retries: <!DOCTYPE HTML>
#: <html lang="en"> <head> …'. A 5xx page otherwise is a provider's proxy failing: said as a failure.
NO_API = frozenset({400, 401, 403, 405, 406, 411, 413, 415, 501})

_PAGE = re.compile(r"\s*(<!doctype\s+html|<html)", re.IGNORECASE)


def web_page(body: Any) -> str | None:
    """The words of the HTML page a server answered with instead of an API's error: its text without
    tags, scripts and styles; None when `body` is no such page."""
    import html

    if not isinstance(body, str) or not _PAGE.match(body):
        return None
    text = re.sub(r"<(head|script|style)\b.*?</\1\s*>", " ", body, flags=re.IGNORECASE | re.DOTALL)
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", text)).split())[:300] or "an empty page"


def _validation_errors(details: list[Any]) -> str:
    """`body.messages: field required` for each error of a FastAPI server's 422 (`detail`: a list
    of `{"loc": [...], "msg": ...}`); empty when the list is not of those."""
    said = []
    for d in details:
        if not isinstance(d, dict) or not isinstance(msg := d.get("msg"), str):
            return ""
        loc = d.get("loc")
        where = ".".join(str(x) for x in loc) if isinstance(loc, list) and loc else ""
        said.append(f"{where}: {msg}" if where else msg)
    return " ".join("; ".join(said).split())[:300]


def not_found(e: BaseException, at: str) -> str:
    """HTTP 404 in one line: the address tried (`at`, " at URL"), what the server said, if anything
    (a proxy or a server with no such path often answers an empty body), and what to check: the
    model's name where it was chosen (`note_model`; `-m NAME` where no note says). It was
    'the provider answered HTTP 404: status_code: 404, model_name: m, body: '."""
    said = _provider_message(e, "")
    model = getattr(e, "model_name", None)
    repl = in_repl()  # where another model is set with /model NAME, not with a -m the user did not use
    chosen = model_note(e, repl)
    flag = "/model" if repl else "-m"
    name = f" ({chosen})" if chosen else f" ({flag} {model})" if isinstance(model, str) and model else ""
    head = f"the model endpoint{at} answered HTTP 404{': ' + said if said else ' (not found), no error message'}"
    if isinstance(model, str) and model in served_ids(e):  # the name is not why: "check the model name" was said of it
        return then(head, f"; the server lists {model}, so check that {address_named(e)} is its API address (it "
                          "often ends in /v1) and what is between them (a proxy)")
    return then(head, f"; check the model name{name} and that {address_named(e)} is the server's API address (it often "
                      "ends in /v1)" + served_words(e))


def unusable_model(e: BaseException, *, url: str, key_from: str) -> str:
    """Why a model we make requests to for ourselves (`analyze --model`'s summaries) cannot be used,
    and what to do, in one line: the endpoint does not answer, refuses the key, or answers with
    something that is no API reply. `url` is the endpoint (shown without its secrets), `key_from`
    where the key came from (`--api-key`, `OPENAI_API_KEY`; empty: none was given)."""
    from . import secrets

    return secrets.hide_url_passwords(secrets.redact(_unusable_model(e, url, key_from)))


def _unusable_model(e: BaseException, url: str, key_from: str) -> str:
    from pydantic_ai.exceptions import (
        ModelAuthenticationError,
        ModelConnectionError,
        ModelHTTPError,
        UnexpectedModelBehavior,
    )

    from . import secrets
    from .agent.run.retry import is_timeout

    at = f" at {secrets.shown_url(url)}" if url else ""
    status = getattr(e, "status_code", None)
    if (isinstance(e, ModelAuthenticationError) or status in (401, 403)) and sent_no_key(e):
        return no_key_line(at)
    if isinstance(e, ModelAuthenticationError) or status in (401, 403):
        what = f"check {key_from}" if key_from else "pass the key with --api-key"
        return f"the provider rejected the API key{at} (HTTP {status or 401}); {what}"
    if (cut := reply_cut(e, at)) is not None:
        return f"{cut}; check that the server there is up and not overloaded, then run again"
    if isinstance(e, ModelConnectionError) and is_timeout(e):
        return (f"the model endpoint{at} did not answer in time{after_retries(e)}; check that the server there is up "
                "and not overloaded, then run again")
    if isinstance(e, ModelConnectionError):
        reason, advice = connection_reason(e)
        return f"cannot reach the model endpoint{at} ({reason}); {advice or 'start the server there or correct --base-url'}"
    # A body that is not JSON, or JSON that is no reply of the API (the error under it may be gone:
    # a summarizer that tried a second way re-raised the first error `from None`).
    malformed = not isinstance(e, ModelHTTPError) and (caused_by(e, ValueError) or "Failed to decode" in str(e))
    if malformed or (isinstance(e, UnexpectedModelBehavior) and str(e).startswith("Invalid response")):
        detail = ("its body is not valid JSON" if reply_not_json(e) is not None  # not the decoder's words
                  else first_line(e).split(":")[0].split(",")[0])
        return (f"the model endpoint{at} answered with something that is no API reply ({detail}); check that "
                "--base-url is the server's API address (it often ends in /v1)")
    if isinstance(e, ModelHTTPError) and status == 404:
        return not_found(e, at)
    return _describe_error(e, retry_hint="")
