"""Whether a configured address (an endpoint's `--base-url`, an MCP server's `url`) is one an HTTP
client can reach, said in words before anything is started; the address shown without its secrets
(a password, a `?key=` value: `secrets.shown_url`), never in the parser's own words, which quote what
they could not read, a password included."""

from __future__ import annotations

from .words import quoted


def address_problem(url: str, example: str) -> str | None:
    """What keeps `url` from being an http:// or https:// address, with `example` of one; None if nothing."""
    from urllib.parse import urlsplit

    from .secrets import shown_url

    shown = shown_url(url)
    if held := ("a line break" if any(c in "\r\n" for c in url) else "a control character" if any(
            ord(c) < 0x20 or ord(c) == 0x7F for c in url) else "a space" if any(c.isspace() for c in url) else ""):
        # The parser drops some of these; the HTTP client refused them in its own words, exit 1.
        return f"{quoted(shown)} is not an address (it holds {held}; e.g. {example})"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as e:
        reason = ("an IPv6 host's [ has no closing ]" if "IPv6" in str(e)
                  else "its port is not a number from 0 to 65535" if "ort" in str(e) else "it cannot be read")
        return f"{quoted(shown)} is not an address ({reason}; e.g. {example})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{quoted(shown)} is not an http:// or https:// address (e.g. {example})"
    return None
