"""The prompt as the command line gets it: the query, joined with what is piped on stdin (`-p -`
reads it all from there; up to STDIN_CAP, more is refused in one line), as text — read as read_file
reads a file: input that is not UTF-8 is 8-bit text, every byte kept, and binary input is refused
in one line — and a stdin nobody writes to (an IDE, cron, a CI step) is not waited on. A prompt
typed without quotes (`compact-agent -p fix the test`) is said in one line, with the quotes it needs."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterable

import typer

from .agent.tools.text_encoding import SNIFF_BYTES, decode, escaped_bytes, shown, sniff
from .cli_help import fail
from .words import plural, quoted


def with_stdin(query: str | None) -> str | None:
    """`-p -` reads the prompt from stdin; `cat log | compact-agent -p "explain"` joins stdin to it."""
    if query == "-":
        return _read_stdin()
    if sys.stdin is None or sys.stdin.isatty():
        return query
    if query and query.strip() and not _stdin_ready(STDIN_WAIT_S):
        # An inherited pipe nobody writes to (an IDE, cron, a CI step) must not hang the run.
        sys.stderr.write(f"compact-agent: note: nothing arrived on stdin within {STDIN_WAIT_S:g}s; "
                         "running the prompt without it\n")
        return query
    piped = _read_stdin()
    if not piped.strip():
        return query
    return f"{query}\n\n{piped}" if query and query.strip() else piped


STDIN_WAIT_S = 5.0
#: The most piped input is read up to. Past about half the compaction threshold, input goes to a file
#: beside the session and the model gets its beginning and end (agent/run/big_input.py), so this is
#: not what a window holds: 32 MB is four times the text of the largest windows (2M tokens, some
#: 8 MB), and bounds the memory the input takes (decoded, redacted and counted, it is copied several
#: times) and the wait before the first request. Read whole, `yes | compact-agent -p explain` read
#: until memory ran out (a MemoryError traceback), and 200 MB of text took 90 s before any request.
STDIN_CAP = 32 * 1024 * 1024


def _read_stdin() -> str:
    if sys.stdin is None:  # closed (`compact-agent -p - <&-`, a service without one): nothing to read
        return ""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        text = sys.stdin.read(STDIN_CAP + 1)
        if len(text) > STDIN_CAP:
            raise _too_long()
        return text
    head = buffer.read(SNIFF_BYTES)
    if sniff(head) is None:  # refused before the rest is read: `head -c 3G /dev/urandom | compact-agent -p x`
        raise _not_text("stdin", head)
    # Fewer bytes than asked for: the end of input came. A terminal's (Ctrl-D) ends one read only,
    # so reading again waited for a second Ctrl-D.
    rest = buffer.read(STDIN_CAP + 1 - len(head)) if len(head) == SNIFF_BYTES else b""
    if len(head) + len(rest) > STDIN_CAP:  # no more is read: an endless stream ends here
        raise _too_long()
    return as_text(head + rest, "stdin")


def _too_long() -> typer.Exit:
    return fail(f"stdin holds more than {STDIN_CAP >> 20} MB, the most piped input is read up to: nothing was sent "
                "(save it to a file in the project and name the file in the prompt: the model can grep it or "
                "read it in slices)", 2)


def as_text(data: bytes, what: str) -> str:
    """Input as text, by the rule read_file reads a file by: a byte-order mark names its encoding
    (UTF-16 and UTF-32 included); without one it is UTF-8, or old 8-bit text (Windows-1252 when it
    uses the bytes 0x80-0x9F, else Latin-1) with a note saying so, every byte a character; a byte
    that is not UTF-8 among UTF-8 characters is sent as U+FFFD. Binary input (a NUL byte without a
    mark, or a mark its bytes do not follow) is refused in one line, exit 2, as read_file refuses a
    binary file: `head -c 3000000 /dev/urandom | compact-agent -p explain` sent some 750K tokens of
    noise read as Latin-1."""
    enc = sniff(data[:SNIFF_BYTES])
    read = decode(data, enc) if enc is not None and (enc.bom or b"\0" not in data) else None
    if read is None:  # a NUL past the first bytes read_file looks at is still no text to send
        raise _not_text(what, data)
    text, enc = read
    if enc.name != "UTF-8":
        sys.stderr.write(f"compact-agent: note: {what} is not UTF-8; it is read as {enc.name}\n")
    elif stray := escaped_bytes(text):
        sys.stderr.write(f"compact-agent: note: {what} is UTF-8 but for {plural(stray, 'byte')} that "
                         f"{'is not, sent' if stray == 1 else 'are not, each sent'} as \ufffd\n")
    return shown(text)


def _not_text(what: str, data: bytes) -> typer.Exit:
    import codecs

    marked = data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))  # UTF-32's too
    # a NUL after UTF-8's mark is the reason, whatever follows (valid UTF-8 and a NUL read "do not follow")
    nul = b"\0" in data and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    why = "it holds a NUL byte" if nul or not marked else "its bytes do not follow its byte-order mark"
    return fail(f"{what} is binary data, not text ({why}): nothing was sent", 2)


def _stdin_ready(timeout: float) -> bool:
    import select

    try:
        return bool(select.select([sys.stdin], [], [], timeout)[0])
    except (OSError, ValueError):  # not selectable (Windows console, a closed stream): just read
        return True


def unquoted_prompt(words: list[str], printing: bool, commands: Iterable[str]) -> str:
    """The line for a prompt given as several arguments (`compact-agent -p what is this project`):
    the command line takes one QUERY, so the library read the second word as a command and said
    `No such command 'is'` under its usage block, or ran the command it named (`-p explain
    sessions` listed the sessions and dropped the prompt). A first word that is a command's name
    misspelt (`analyse PATH`) is said to be no command, with the one it resembles."""
    from difflib import get_close_matches

    close = get_close_matches(words[0], list(commands), n=1, cutoff=0.75)
    if close:
        return (f"{quoted(words[0])} is not a command; did you mean {close[0]}? (a prompt of several words goes in "
                "quotes, as one argument)")
    return f"a prompt of several words goes in quotes, as one argument: compact-agent {'-p ' if printing else ''}{_quoted(words)}"


def given_twice(before: list[str], after: list[str], printing: bool) -> str:
    """The line for a prompt given both before `--` and after it (`compact-agent -p hi -- extra
    words`): the words after `--` were dropped without a word, and only `hi` was sent. Which one
    was meant is not ours to guess; the line shows the prompt as one argument after `--`."""
    p = "-p " if printing else ""
    if before == ["-"]:  # `-p - -- words`: stdin is the prompt, and so are the words
        return (f"-p - reads the prompt from stdin, and '{_cut(after)}' after -- is another one: give one of "
                f"them (piped stdin is added after a prompt: compact-agent {p}-- {_quoted(after)})")
    return (f"the prompt is given twice, '{_cut(before)}' before -- and '{_cut(after)}' after it: give it "
            f"once, after -- (compact-agent {p}-- {_quoted([*before, *after])})")


def _cut(words: list[str], most: int = 60) -> str:
    """The words on one line, cut at a word to at most about `most` characters."""
    text = " ".join(" ".join(words).split())
    return text if len(text) <= most else text[:most - 3].rsplit(" ", 1)[0] + " …"


def _quoted(words: list[str]) -> str:
    """The words as one argument of a shell command line (`_cut` to fit a line)."""
    text = _cut(words)
    return shlex.quote(text) if any(c in text for c in '"$`\\!') else f'"{text}"'


def misspelt_command(word: str, commands: Iterable[str]) -> str | None:
    """The command a lone QUERY misspells (`confg`: config, `anlyze`: analyze, `Sessions`: sessions),
    or None: it is a prompt. Taken for a prompt, such a word started a REPL whose first request paid
    for it, or a `-p` turn the model answered with a guess.

    The rule: one word of letters alone (a prompt of one word that is no typo, `hello`, `explain`,
    `continue`, `status`, `fix`, `review`, `test`, is none of the below; `hello?` or `fix-it` has
    more than letters), that ignoring case is a command's name, or one edit from it (a letter
    added, dropped, changed, or two next to each other swapped: `cofnig`), two from a name of seven
    letters or more (`anaylse`), a name with more after it (`configure`, `analyzer`), or its
    first four letters or more (`conf`). `help` is not among the names: `hello` is one edit from
    it. A word so refused is sent as a prompt after `--` (`compact-agent -p -- analyse`)."""
    if not word.isascii() or not word.isalpha():
        return None
    typed = word.lower()
    for name in commands:
        if typed == name or (len(typed) >= 4 and name.startswith(typed)) or typed.startswith(name):
            return name
        if _edits(typed, name) <= (2 if len(name) >= 7 and typed[:2] == name[:2] else 1):
            return name
    return None


def _edits(a: str, b: str) -> int:
    """The edits from `a` to `b`: letters added, dropped or changed, two next to each other swapped
    (the optimal string alignment distance)."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]
