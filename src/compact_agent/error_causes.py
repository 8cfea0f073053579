"""What lies under an error's surface, found for the one-line texts (error_text.py): the errors an
SDK wrapped (`chain`, `caused_by`), the address a failed request went to, the `retry-after` a
provider asked for, whether a key was sent at all, a reply cut off mid-way and one that was not
JSON, why a connection failed (`connection_reason`) and the proxy it could not reach. Apart from the
texts so that the looking (through `__cause__`, a response's headers, a request's URL) is in one
place and error_text.py is left with the words.

Every import of agent or SDK code is late, as in error_text.py: --version and --help load none of it."""

from __future__ import annotations

import re


def chain(e: BaseException) -> list[BaseException]:
    """`e` and the errors under it (imported late: --version and --help load no agent code)."""
    from .agent.run.retry import error_chain

    return error_chain(e)


def retry_after(e: BaseException) -> float | None:
    """Seconds the provider's `retry-after` header asked for (on the SDK error under `e`), if any."""
    for cause in chain(e):
        headers = getattr(getattr(cause, "response", None), "headers", None)
        if headers is not None and headers.get("retry-after"):
            try:
                return float(headers["retry-after"])
            except ValueError:
                return None
    return None


def endpoint(e: BaseException) -> str:
    """` at http://host:port/path`: the address a failed request went to (from the SDK error under
    `e`), so the line names it whether it came from --base-url, a settings file or the provider's
    default; empty when no error says."""
    for cause in chain(e):
        url = getattr(getattr(cause, "request", None), "url", None)
        if url is not None and getattr(url, "host", None):
            return f" at {url.copy_with(query=None, fragment=None)}"
    return ""


def connection_reason(e: BaseException) -> tuple[str, str | None]:
    """Why a request reached no server, in words, from the transport error under `e` (the SDKs say
    only "Connection error."), and what to do about it when the cause says: nothing listening, a
    host name that does not resolve, TLS spoken to a plain-HTTP port, a server that hung up
    without answering. Otherwise the innermost error's words and None."""
    import os
    import socket
    import ssl

    import httpx2 as httpx

    causes = chain(e)
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        return "connection refused: nothing listens at that address and port", "start the server there, or correct the address"
    if any(isinstance(c, socket.gaierror) for c in causes):
        return "its host name does not resolve", "check the address and the network"
    if any(isinstance(c, ssl.SSLError) and "WRONG_VERSION_NUMBER" in str(c) for c in causes):
        return "the server there does not speak TLS", "give its address with http://, not https://"
    if any(isinstance(c, httpx.RemoteProtocolError) for c in causes):
        return ("the server there closed the connection without answering",
                "check that it is up and serves this API there (its log may say why)")
    if any(isinstance(c, httpx.UnsupportedProtocol) for c in causes):  # ours are checked: a client's own variable
        bad = [f"{v}={os.environ[v].rpartition('@')[2]!r}" for v in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
               if v in os.environ and not os.environ[v].startswith(("http://", "https://"))]  # no user:password@
        return (f"{' and '.join(bad) or 'its address'} is no http:// or https:// address",
                "the provider's client sends its requests there: give the server's address, or unset it" if bad else None)
    said = [first_line(c) for c in causes if str(c).strip()]
    return (said[-1] if said else "connection failed"), None


#: The most an error line says: past it, `bounded` takes out its middle.
LINE_LIMIT = 400

#: A path a line names (`/home/me/.config/…/config.toml`, `~/notes`): a word starting with `/` or
#: `~/` after a space, a bracket or a quote (not a URL's `//`), without the bracket, quote or
#: punctuation that closes it.
_PATH = re.compile(r"(?<![^\s(\"'`])~?/[^\s\"'`]*[^\s\"'`).,;:]")


def first_line(e: BaseException) -> str:
    if isinstance(e, UnicodeEncodeError):  # Python's "'utf-8' codec can't encode character '\\udce9' in position 3"
        return unencodable(e)
    lines = str(e).strip().splitlines()
    return bounded(lines[0] if lines else "unexpected error")


def unencodable(e: UnicodeEncodeError) -> str:
    """'the text holds a character that cannot be written as UTF-8 (\\udce9 at character 4: a byte that
    was not UTF-8 text)': a request, a file or a stream that met a character its encoding lacks."""
    ch = e.object[e.start:e.start + 1]
    what = ch.encode("ascii", "backslashreplace").decode()
    why = ": a byte that was not UTF-8 text" if "\ud800" <= ch <= "\udfff" else ""
    return (f"the text holds a character that cannot be written as {e.encoding.upper()} ({what} at character "
            f"{e.start + 1}{why})")


def bounded(line: str, limit: int = LINE_LIMIT) -> str:
    """`line` in at most `limit` characters besides the paths it names. A longer one loses its middle,
    where a line quotes what a provider or server said, for ` … `: its start says what failed and its
    end what to do. Cut at its end, 'not compacted: … (2 requests in all); nothing was' lost 'changed;
    /compact again to retry'. Each side is cut between words where one ends within a tenth of the limit
    of the cut.

    A path is said whole and not counted (one of up to `limit` characters: a longer word is no file's
    path): cut, it names no file. And where the middle would take a path, the cut ends before the
    clause naming it (after `; `), if a quarter of the limit is left before: a /compact's 404 whose
    model a config file at a long path chose said 'check the model name (model = … and that', the
    advice that names the file taken out with what the provider said."""
    paths: list[str] = []

    def mark(found: re.Match[str]) -> str:  # each path one character, put back whole once the line is cut
        if len(found[0]) > limit:  # no file's: a blob that starts with a slash, cut as any text
            return found[0]
        paths.append(found[0])
        return "\0"

    short = _PATH.sub(mark, line) if "\0" not in line else line
    if len(short) <= limit:
        return line
    room = limit - 3  # the ellipsis and a space either side
    head, tail = short[:room // 2], short[len(short) - (room - room // 2):]
    slack = limit // 10
    named = short.find("\0", len(head))
    clause = short.rfind("; ", 0, named) + 2 if 0 <= named < len(short) - len(tail) else 0
    if clause >= 2 and room - (len(short) - clause) >= limit // 4:  # the advice naming a path kept, whole
        head, tail = short[:room - (len(short) - clause)], short[clause:]
    elif 0 <= (space := tail.find(" ")) <= slack:
        tail = tail[space + 1:]
    if (space := head.rfind(" ")) >= len(head) - slack:
        head = head[:space]
    kept = iter(paths[:head.count("\0")] + paths[len(paths) - tail.count("\0"):])
    return re.sub("\0", lambda _: next(kept), f"{head.rstrip()} … {tail.lstrip()}")


def clipped(text: str, limit: int = 300) -> str:
    """`text` on one line, in at most `limit` characters: cut, it ends with `…`, so the line says
    that the provider's message went on."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def proxy_unreached(e: BaseException, reason: str) -> str | None:
    """'cannot reach the proxy URL (VARIABLE) on the way to the model endpoint at URL (REASON); ...'
    for a request that failed on its way to the proxy the environment names (deadline.py notes it),
    `reason` being `connection_reason`'s for that connection; 'the proxy ... did not open a
    connection to the model endpoint ...' for one the proxy answered with a refusal; 'the proxy ...
    closed the connection without answering' for one it hung up on before anything passed it.
    The proxy is named without the user and password its address may hold. None for any other
    failure: a TLS error after the proxy's tunnel was open is the endpoint's, and said as its."""
    import socket
    import ssl

    import httpx2 as httpx

    from .deadline import NOTHING_PASSED, ProxyUnusable, proxy_noted

    causes = chain(e)
    shown, variable = next((named for c in causes if (named := proxy_noted(c))[0]), ("", ""))
    if not shown:
        return None
    proxy = f"{shown} ({variable})" if variable else shown
    if (unusable := next((c for c in causes if isinstance(c, ProxyUnusable)), None)) is not None:
        return (f"cannot send requests through the proxy {proxy} to the model endpoint{endpoint(e)} ({unusable}); "
                f"correct {variable or 'the variable that names it'}, or unset it")
    refused = next((c for c in causes if isinstance(c, httpx.ProxyError)), None)
    if refused is not None:  # the proxy answered CONNECT with an error status
        return (f"the proxy {proxy} did not open a connection to the model endpoint{endpoint(e)} (it answered "
                f"{str(refused).strip() or 'with an error'}); check that the proxy lets requests through to it, or "
                f"name its host in NO_PROXY")
    if any(isinstance(c, httpx.RemoteProtocolError) for c in causes) and any(
            NOTHING_PASSED in getattr(c, "__notes__", ()) for c in causes):  # it hung up before any tunnel opened
        return (f"the proxy {proxy} closed the connection without answering, on the way to the model endpoint"
                f"{endpoint(e)}; check that a proxy serves there (its log may say why), correct "
                f"{variable or 'the variable that names it'}, or unset it")
    connecting = any(isinstance(c, (ConnectionRefusedError, socket.gaierror)) for c in causes) or (
        any(isinstance(c, httpx.ConnectError) for c in causes) and not any(isinstance(c, ssl.SSLError) for c in causes))
    if not connecting:
        return None
    return (f"cannot reach the proxy {proxy} on the way to the model endpoint{endpoint(e)} ({reason}); "
            f"start the proxy there, correct {variable or 'the variable that names it'}, or unset it")


def after_retries(e: BaseException) -> str:
    """How often the failed request was tried, as a timeout's line says it: `, after 2 retries`;
    `, tried once with max_retries = 0` where the SDK retried it not at all (it retries a timeout while
    `max_retries` lets it); `, tried once, since a reply that had begun streaming is not retried`
    where the one attempt failed while its streamed reply was being read, which the SDKs never send
    again whatever `max_retries` says (`stream_began`); `, after retries` where no request says. The
    SDK numbers each attempt's retries in a header it sends (`x-stainless-retry-count`), on the last
    attempt's request."""
    n = retries(e)
    if n is None:
        return ", after retries"
    if n == 0:
        return ", tried once, since a reply that had begun streaming is not retried" if stream_began(e) else (
            ", tried once with max_retries = 0")
    return f", after {n} retr{'y' if n == 1 else 'ies'}"


#: The modules where the SDKs read a streamed reply's events, after the request (and its retries) returned.
_STREAM_READERS = ("openai._streaming", "anthropic._streaming")


def stream_began(e: BaseException) -> bool:
    """The failed attempt's reply was a stream (SSE) whose headers had come: the error under `e` was
    raised while its body was read, through the deadline's stream (deadline.py) of such a reply, or
    in the SDK's reader of its events (an error event: `{"error": ...}` in place of a chunk). The
    SDKs retry within the request they send; the stream is read after it has returned, so an error
    there (a timeout, the deadline, an error event) ends the attempt for good. A body that is not
    streamed is read within the request, and retried."""
    for cause in chain(e):
        tb = cause.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            module = frame.f_globals.get("__name__")
            if module in _STREAM_READERS or (module == "compact_agent.deadline" and frame.f_code.co_name == "__aiter__"
                                             and getattr(frame.f_locals.get("self"), "sse", False) is True):
                return True
            tb = tb.tb_next
    return False


def retries(e: BaseException) -> int | None:
    """How many times the SDK sent the failed request again (`after_retries`); None where no request says."""
    for cause in chain(e):
        headers = getattr(getattr(cause, "request", None), "headers", None)
        count = headers.get("x-stainless-retry-count") if headers is not None else None
        if isinstance(count, str) and count.isdigit():
            return int(count)
    return None


def caused_by(e: BaseException, kind: type[BaseException]) -> bool:
    """`e` or an error under it (the SDKs wrap transport errors) is a `kind`."""
    return any(isinstance(c, kind) for c in chain(e))


def sent_no_key(e: BaseException) -> bool:
    """The failed request carried no key of the user's, only the placeholder a --base-url server
    gets when none was given (models.NO_KEY): a refusal of it is a missing key, not a wrong one."""
    from .models import NO_KEY

    for cause in chain(e):
        headers = getattr(getattr(cause, "request", None), "headers", None)
        if headers is not None and "authorization" in headers:
            return bool(headers["authorization"] == f"Bearer {NO_KEY}")
    return False


def key_from(e: BaseException) -> str:
    """` from ANTHROPIC_API_KEY` (or ` given with --api-key`): where the key a refused request carried
    came from, told by the provider variable that holds that very key (none does: --api-key); empty
    where no request says what it sent. The key itself is never said."""
    import os

    from .models import KEY_VARIABLE

    for cause in chain(e):
        headers = getattr(getattr(cause, "request", None), "headers", None)
        if headers is None or not ("x-api-key" in headers or "authorization" in headers):
            continue
        sent = headers.get("x-api-key") or headers["authorization"].removeprefix("Bearer ").strip()
        held = [v for v in KEY_VARIABLE.values() if sent and os.environ.get(v, "").strip() == sent]
        return f" from {held[0]}" if held else " given with --api-key"
    return ""


def reply_cut(e: BaseException, at: str | None = None) -> str | None:
    """'the provider's reply was cut off mid-way: the model endpoint at URL closed the connection
    before the reply ended' for a reply whose connection closed after it had begun (deadline.ReplyCut),
    else None: it is no server that could not be reached, nor one that hung up without answering.
    `at` (" at URL") where the caller knows the address better than the error."""
    from .deadline import ReplyCut

    cut = next((c for c in chain(e) if isinstance(c, ReplyCut)), None)
    if cut is None:
        return None
    where = endpoint(e) if at is None else at
    tries = "" if cut.streamed else ", on every try"  # the SDKs retry a reply that was not streamed
    return f"the provider's reply was cut off mid-way: the model endpoint{where} closed the connection before the reply ended{tries}"


def reply_not_json(e: BaseException) -> str | None:
    """'the model endpoint sent a reply that is not valid JSON (at character 39)' (where it broke,
    where an error says), or None for any other error. The SDKs wrap the decoder's error in theirs
    ("Failed to decode response as JSON: Expecting property name enclosed in double quotes: line 1
    column 40 (char 39)"), words of Python's that are no use to the user."""
    import json

    from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError, UnexpectedModelBehavior

    if not isinstance(e, (ModelAPIError, UnexpectedModelBehavior)) or isinstance(e, ModelHTTPError):
        return None
    decoder = next((c for c in chain(e) if isinstance(c, json.JSONDecodeError)), None)
    said = re.search(r"\(char (\d+)\)", str(e))
    if decoder is None and not ("Failed to decode" in str(e) or ("JSON" in str(e) and said)):
        return None
    at = decoder.pos if decoder is not None else int(said[1]) if said else None
    where = f" (at character {at})" if at is not None else ""
    return f"the model endpoint{endpoint(e)} sent a reply that is not valid JSON{where}"


#: The modules that read a provider's reply: pydantic-ai's model classes and the SDKs under them.
_READERS = ("pydantic_ai.models", "openai", "anthropic")


#: pydantic-ai's words for a streamed reply in which no event of the API came (its OpenAI and Anthropic models').
_NO_EVENTS = "Streamed response ended without content or tool calls"


def reply_no_events(e: BaseException) -> str | None:
    """'the model endpoint answered with none of the API's streamed events …' for a reply whose
    stream held not one event: a web server's page answered with 200 (a web UI's port given as the
    API's), or an empty body; else None. It was said in pydantic-ai's words, 'the model replied with
    something unusable: Streamed response ended without content or tool calls', as if the model
    had answered."""
    from pydantic_ai.exceptions import UnexpectedModelBehavior

    if isinstance(e, UnexpectedModelBehavior) and str(e).startswith(_NO_EVENTS):
        return (f"the model endpoint{endpoint(e)} answered with none of the API's streamed events (a web page "
                "or an empty reply: no model API answered there)")
    return None


def reply_unreadable(e: BaseException) -> str | None:
    """'the model endpoint sent a reply in a shape this agent cannot read' for an error raised
    where the provider's reply is read (`choices` a string: "'str' object has no attribute
    'finish_reason'"; `created` no time: "1 validation error for datetime"), else None. The SDKs
    build a streamed reply's chunks without checking them, so a field of another type than the
    API's fails in the code reading it, in Python's words. The innermost frame of that code or of
    ours decides (pydantic's and the standard library's between are neither): the same error
    raised in our own code, also one called back from a reader, is ours, not the reply's. A reply
    refused as it arrived, its parts not of their types (retry.ReplyOfAnotherShape), and one not
    streamed that pydantic-ai found invalid are said alike."""
    from pydantic_ai.exceptions import UnexpectedModelBehavior

    from .agent.run.retry import ReplyOfAnotherShape

    if isinstance(e, ReplyOfAnotherShape):
        return _ANOTHER_SHAPE
    if isinstance(e, UnexpectedModelBehavior) and str(e).startswith("Invalid response"):
        return _ANOTHER_SHAPE  # a reply not streamed, checked by pydantic: "1 validation error for ChatCompletion"
    if not isinstance(e, (AttributeError, TypeError, KeyError, IndexError, ValueError)):
        return None
    if isinstance(e, UnicodeEncodeError):  # text of ours the request could not carry: reading a reply decodes
        return None
    reader = False
    tb = e.__traceback__
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        if module.partition(".")[0] == "compact_agent":
            reader = False
        elif any(module == r or module.startswith(f"{r}.") for r in _READERS):
            reader = True
        tb = tb.tb_next
    return _ANOTHER_SHAPE if reader else None


_ANOTHER_SHAPE = ("the model endpoint sent a reply in a shape this agent cannot read (a field missing, or not of "
                  "the type its API gives it)")
