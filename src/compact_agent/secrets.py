"""Keep the provider API key out of everything the agent writes or runs.

The key reaches the process as `--api-key` or an environment variable. Two ways it could then end
up on disk, in files meant to be kept and shared (sessions, archives, events, spilled results,
notes): a command the model runs inherits the environment (`env`, a debug script, a failing test
printing its settings), or some text quotes it (a provider error, a config file the model reads).
So commands get an environment without the provider key variables, and every writer of our files
replaces a registered key with `[REDACTED]` before the bytes reach the disk (the registry and the
redaction are the library's, `compact_agent.context.plumbing.secrets`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping

from .context.plumbing.secrets import (
    MIN_LEN,
    REDACTED,
    StreamRedactor,
    key_forms,
    redact,
    redact_bytes,
    register,
    registered_keys,
)

__all__ = ["KEY_VARS", "MIN_LEN", "REDACTED", "URL_VARS", "StreamRedactor", "redact", "redact_bytes", "register",
           "hide_url_passwords", "key_shaped_at", "keys_cut", "register_environment", "register_url", "scrubbed_env", "seal_bytes",
           "shown_url", "unseal_bytes"]

#: Environment variables holding a key for a provider we talk to.
KEY_VARS = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "COMPACT_AGENT_API_KEY")
#: The variables a provider's client takes its server's address from (agent/run/server_keys.py): a
#: password or token in that address is a key to the server, whoever reads the variable.
URL_VARS = ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


#: The userinfo of an address in any text: after `scheme://`, up to the last `@` before the host (a
#: password may hold an `@` of its own); `/`, `?`, `#`, whitespace and quotes end the search, but for
#: a `/` in what follows `user:` when that is no port (`http://u:pa/ss@host`, a password the parser
#: cannot read either, so it is refused as an address and quoted).
_USERINFO = re.compile(r"""(?ix)\b([a-z][a-z0-9+.-]*://)(
      [^\s/?#@'"<>]*(?:@[^\s/?#@'"<>]*)*              # user[:password], with @ in it
    | [^\s/?#@'"<>:]*:(?!\d*(?:/|$))[^\s?#'"<>]*      # user:pass/word, not host:port/path
    )@(?=[^\s@'"<>]*(?:[\s'"<>]|$))""")
#: A query value whose name says it is a credential (`?key=`, `api_key=`, `access_token=`, `sig=`, ...).
_QUERY_SECRET = re.compile(r"(?i)([?&;][\w.~-]*(?:key|token|secret|password|passwd|pwd|auth|sig|signature|"
                           r"credential)s?[\w.~-]*=)([^&#\s'\"<>]+)")


def _hide_userinfo(m: re.Match[str]) -> str:
    user, colon, _password = m.group(2).partition(":")
    return f"{m.group(1)}{user}:***@" if colon else f"{m.group(1)}***@"  # a name alone may be a token


#: The shortest run of letters and digits taken for a key's random part by its shape alone.
KEY_SHAPED_LEN = 20
_WORD = re.compile(r"[A-Za-z0-9]+")


def _random_word(word: str) -> bool:
    """A word as a key's random part is cut into by `-` or `_`: letters and digits mixed, few repeats."""
    return (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
            and len(set(word)) > min(len(word), 8) // 2)


def _long_random(word: str) -> bool:
    """A word of `KEY_SHAPED_LEN` letters and digits or more, with a digit in it, or with upper and
    lower case mixed as in random text (a quarter each at least: `MyBackendService` is a name)."""
    if len(word) < KEY_SHAPED_LEN:
        return False
    upper = sum(c.isupper() for c in word)
    return any(c.isdigit() for c in word) or min(upper, len(word) - upper) * 4 >= len(word)


def key_shaped_at(name: str) -> int | None:
    """Where in `name` (a file or folder name) a part shaped like a key begins, whether or not that
    key is registered; None for none. That part is a word of letters and digits as `_long_random`
    tells one, or consecutive words that mix letters and digits coming to `KEY_SHAPED_LEN` letters
    together (a random part cut by `-` or `_`, or spelt with dots); it begins at the first of the
    mixed words just before (`api03` of `sk-ant-api03-…`, not its kind `sk-ant-`)."""
    start: int | None = None
    total = 0
    for m in _WORD.finditer(name):
        word = m.group()
        if _random_word(word):
            start = m.start() if start is None else start
            total += len(word)
        else:
            start, total = None, 0
        if _long_random(word) or total >= KEY_SHAPED_LEN:
            return m.start() if start is None else start
    return None


def keys_cut(path: str, mark: str) -> str:
    """`path` with each of its names cut where a part shaped like a key begins (`key_shaped_at`),
    `mark` instead of the rest of that name: the sessions folder's name (`REDACTED`) and the system
    prompt's working directory (`[REDACTED]`) hide such a part whether or not a run knows that key."""
    names = re.split(r"([/\\])", path)
    return "".join(n if (at := key_shaped_at(n)) is None else n[:at] + mark for n in names)


def hide_url_passwords(text: str) -> str:
    """Every address in `text` without its secrets: the password of `http://user:pass@host/v1` shown
    as `***` (a userinfo without a password, `http://TOKEN@host`, as `***@`), and the value of a
    query parameter named like a credential (`?api_key=...`, `&token=...`) as `***`. The base URL is
    printed in errors, notes and `config`, and a short password is below what `register` takes."""
    return _QUERY_SECRET.sub(r"\1***", _USERINFO.sub(_hide_userinfo, text))


def shown_url(url: str) -> str:
    """`url` as it may be shown, also when it is no well-formed address (a --base-url about to be
    refused): then everything between `://` and the last `@` before the query is taken for the
    userinfo, so a password with a `/` or a `[` in it is hidden too. Without `://` at all (`http//`
    typed for `http://`, or no scheme: `bob:pw@host/v1`), all from the first `:` to the last `@` before
    the query is taken for a password, and a name alone before an `@` for a token."""
    from urllib.parse import urlsplit

    scheme, sep, rest = url.partition("://")
    if not sep:
        return hide_url_passwords(_schemeless_userinfo_hidden(url))
    authority = re.split(r"[?#]", rest, maxsplit=1)[0]
    try:
        urlsplit(url).port  # noqa: B018 - raises on what is no address
        well_formed = True
    except ValueError:
        well_formed = False
    if sep and not well_formed and "@" in authority:
        info, _, after = authority.rpartition("@")
        user, colon, _password = info.partition(":")
        shown = f"{user}:***" if colon and "/" not in user and "[" not in user else "***"
        url = f"{scheme}://{shown}@{after}{rest[len(authority):]}"
    return hide_url_passwords(url)


def _schemeless_userinfo_hidden(text: str) -> str:
    """`text`, an address typed without `://`, with what may be its password hidden (`shown_url`)."""
    parts = re.split(r"([?#])", text, maxsplit=1)
    before, after = parts[0], "".join(parts[1:])
    if "@" not in before:
        return text
    info, _, host = before.rpartition("@")
    colon = info.find(":")
    if colon < 0:  # a name alone may be a token
        return f"{info[:info.rfind('/') + 1]}***@{host}{after}"
    return f"{info[:colon]}:***@{host}{after}"


def _url_secrets(url: str) -> list[str]:
    """The secret parts of `url`: its userinfo's password (or a name alone), its credential query values."""
    from urllib.parse import unquote

    found: list[str] = []
    _scheme, sep, rest = url.partition("://")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0] if sep else ""
    if "@" in authority:
        user, colon, password = authority.rpartition("@")[0].partition(":")
        found.append(password if colon else user)
    found += [m.group(2) for m in _QUERY_SECRET.finditer(url)]
    return [form for value in found if value for form in (value, unquote(value))]


def register_url(url: str | None) -> None:
    """The secrets in `url` (a password, a token as the user name, a `?key=` value), if any, are
    redacted like a key from everything we write."""
    for secret in _url_secrets(url or ""):
        register(secret)


def register_environment(environ: Mapping[str, str] = os.environ) -> None:
    """The provider keys in `environ`, and the secrets of the servers' addresses in it (`URL_VARS`):
    redacted from all we write, and their variables left out of the commands' environment."""
    for var in KEY_VARS:
        register(environ.get(var))
    for var in URL_VARS:
        register_url(environ.get(var))


def scrubbed_env(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment for a command the model runs: no provider key variable, and no variable
    whose value holds a registered secret (a key exported under another name, or inside a longer
    value: `AUTH="Bearer sk-…"`, a URL with the password in it), nor a server's address (`URL_VARS`)
    with a secret in it, one too short to be registered included."""
    return {k: v for k, v in environ.items() if k not in KEY_VARS and not (k in URL_VARS and _url_secrets(v))
            and not any(s in v for s in registered_keys)}  # a server address's password, however short


_SEAL = b"\x00compact-agent-key:"
_SEALED = re.compile(rb"\x00compact-agent-key:([0-9a-f]{16})\x00")


def _mark(raw: bytes) -> bytes:
    return hashlib.sha256(raw).hexdigest()[:16].encode()


#: The encodings a file may hold a key in: a `.env` Windows PowerShell's `>` wrote is UTF-16.
_ENCODINGS = ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")


_sealed: tuple[frozenset[str], list[bytes]] = (frozenset(), [])  # the forms below, of the keys they were made of


def _sealed_forms() -> list[bytes]:
    """Every registered key as a file may hold it — as it is, reversed or base64-encoded (`key_forms`,
    as redaction knows them), in UTF-8, UTF-16 or UTF-32 — longest first. Made again only when
    the keys registered change: every file version a write checkpoints is sealed."""
    global _sealed
    texts = frozenset((*registered_keys, *key_forms))
    if texts != _sealed[0]:
        found = {text.encode(enc, "surrogateescape" if enc == "utf-8" else "surrogatepass")
                 for text in texts for enc in _ENCODINGS}
        _sealed = (texts, sorted(found, key=len, reverse=True))
    return _sealed[1]


def seal_bytes(data: bytes) -> bytes:
    """`data` to be kept in a file of ours that must give it back byte for byte (a version of a
    file /rewind puts back): each registered key in it (in any form `_sealed_forms` knows: a
    Kubernetes secret holds it base64-encoded, a `.env` may be UTF-16) replaced by a mark naming
    that form by a hash of it, so the key is in no file we write and `unseal_bytes` can put it back."""
    for raw in _sealed_forms():
        if raw in data:
            data = data.replace(raw, _SEAL + _mark(raw) + b"\x00")
    return data


def unseal_bytes(data: bytes) -> bytes | None:
    """`data` as it was before `seal_bytes`, or None when it held a key not registered now (the
    session resumed with another key): that key cannot be put back."""
    if _SEAL not in data:
        return data
    known = {_mark(raw): raw for raw in _sealed_forms()}
    unknown = False

    def back(m: re.Match[bytes]) -> bytes:
        nonlocal unknown
        raw = known.get(m.group(1))
        unknown = unknown or raw is None
        return raw if raw is not None else m.group(0)

    out = _SEALED.sub(back, data)
    return None if unknown else out


def hide_from_children() -> None:
    """Make the key unreadable to the commands this process runs (Linux; elsewhere a no-op).

    A command runs as the same user, so without this it could read `/proc/<our pid>/environ`
    and `/proc/<our pid>/cmdline` — the key as exported, or as given with `--api-key` — and show
    it to the model. Two locks: the process is made non-dumpable (its /proc files then belong
    to root, and it cannot be ptraced by the user's other processes), and the registered keys are
    overwritten with `*` in the original argument and environment blocks those two files show
    (`os.environ` is a copy made at start-up, so the SDKs and later model builds are unaffected).
    A root user can still read anything; so can a command that asks the user for it.
    """
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass
    if not registered_keys:
        return
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        # arg_start, arg_end, env_start, env_end are fields 48-51 of proc(5); field 3 is fields[0].
        arg_start, arg_end, env_start, env_end = (int(x) for x in fields[45:49])
    except (OSError, ValueError, IndexError):
        return
    for start, end in ((arg_start, arg_end), (env_start, env_end)):
        if not 0 < start < end or end - start > 1 << 24:
            continue
        block = ctypes.string_at(start, end - start)
        for secret in registered_keys:
            raw = secret.encode("utf-8", "surrogateescape")
            at = block.find(raw)
            while at >= 0:
                ctypes.memset(start + at, ord("*"), len(raw))
                at = block.find(raw, at + len(raw))
