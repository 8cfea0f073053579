"""A command line read the way bash reads it, for the bash rules (bash_rules.py).

A rule can only vouch for what it sees, so the reading follows bash where a simpler splitter
(Python's `shlex`) parts from it: a `#` that begins a word starts a comment to the end of the
line, `$'…'` is a quote whose `\\'` does not end it, a backslash before a newline joins the lines,
`\\r` is an ordinary character, `2>&1` is a redirection and not a word. What it cannot follow is
said, not guessed: `unread` names what bash would evaluate again as text (arithmetic on a
variable, `$[…]`, `${…}` with an offset, a subscript, `!` or `@P`, `[[ … -eq … ]]`, `let`, a
builtin given `name[…]`), a command whose name is an expansion or a pattern, and quotes or
parentheses that do not close; `doubtful` adds what an allow rule does not vouch for although a
deny rule can read it (any expansion beyond a plain `$NAME`, a substitution, `$'…'`, `$"…"`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BLANKS = " \t"
#: Longest first: `;;&` before `;;` before `;`.
OPERATORS = (";;&", ";;", ";&", "&&", "&>>", "&>", "||", "|&", "<<<", "<<-", "<<", "<&", "<>", "<(",
             ">>", ">&", ">|", ">(", ";", "&", "|", "<", ">", "(", ")")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SPECIALS = frozenset("?$!#-@*0123456789")
#: `${NAME op word}` whose word is only expanded, never evaluated as a number or a prompt.
_STRING_OP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(:?[-=+?]|##?|%%?|//?|\^\^?|,,?|@[QEAKaUuLk]$)")
_ARITH_WORDS = re.compile(r"[A-Za-z_$`\\]")  # a name (its value is evaluated again), an expansion
_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
            "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_NUMBER = re.compile(r"[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}")
SUBSTITUTION = "a substitution ($(…), backticks)"
_PLAIN = re.compile(r"[^ \t\n\\'\"`$;&|<>()*?\[{]+")  # characters that are only themselves, in a run
_PLAIN_QUOTED = re.compile(r"[^\"\\$`]+")


class Unparsable(Exception):
    """Quotes, a substitution or parentheses that do not close where bash would look for the end."""


class Word:
    """One word: `text` after quote removal, an expansion as written (`$HOME`); `started` (`''` is a
    word, of nothing); `static`: nothing in it is expanded, bash gives `text` itself; `pattern`: an
    unquoted `*`, `?`, `[` or `{` bash may turn into other words; `quoted`: any quoting in it."""

    def __init__(self, text: str = "", started: bool = False, static: bool = True) -> None:
        self.parts = [text]
        self.started, self.static, self.pattern, self.quoted = started, static, False, False

    @property
    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0]

    def add(self, text: str, quoted: bool = False, static: bool = True) -> None:
        self.started = True
        self.parts.append(text)
        self.quoted |= quoted
        self.static &= static


@dataclass
class Lexed:
    commands: list[list[Word]] = field(default_factory=list)
    redirects: bool = False  # a file read or written (not `2>&1` nor `/dev/null`), a here-document or -string
    inner: list[str] = field(default_factory=list)  # what bash runs as commands: `$(…)`, backticks, `<(…)`
    bodies: list[tuple[int, str]] = field(default_factory=list)  # here-documents: (index of the command, text)
    unread: str | None = None  # why what the line runs cannot be told from it
    doubtful: str | None = None  # why an allow rule does not vouch for it (`unread` included)

    def cannot_read(self, why: str) -> None:
        self.unread = self.unread or why
        self.doubt(why)

    def doubt(self, why: str) -> None:
        self.doubtful = self.doubtful or why


def lex(line: str) -> Lexed:
    """`line` as bash reads it: its simple commands, redirections, substitutions and doubts."""
    out = Lexed()
    reader = _Reader(line, out)
    try:
        reader.read()
    except Unparsable as e:
        reader.end_command()
        out.cannot_read(str(e))
    except RecursionError:  # `"$("$("…`, thousands deep: no line a person writes
        out.cannot_read("substitutions nested too deep")
    return out


class _Reader:
    def __init__(self, s: str, out: Lexed) -> None:
        self.s, self.out = s, out
        self.word = Word()
        self.cmd: list[Word] = []
        self.depth = 0  # subshells open
        self.target = ""  # the redirection whose target is the next word
        self.heredocs: list[tuple[str, bool, bool, int]] = []  # (delimiter, quoted, strip tabs, command)

    # the line --------------------------------------------------------------------------------
    def read(self) -> None:
        s, i = self.s, 0
        while i < len(s):
            c = s[i]
            if c in BLANKS:
                self.end_word()
                i += 1
            elif c == "\n":
                self.end_command()
                i = self.read_bodies(i + 1)
            elif c == "#" and not self.word.started:  # a comment, to the end of the line
                i = len(s) if (nl := s.find("\n", i)) < 0 else nl
            elif c == "\\":
                if s.startswith("\n", i + 1):  # the lines are joined
                    self.joined(i)
                    i += 2
                else:
                    self.word.add(s[i + 1:i + 2] or "\\", quoted=True)
                    i += 2
            elif c == "'":
                if (j := s.find("'", i + 1)) < 0:
                    raise Unparsable("an unclosed '")
                self.word.add(s[i + 1:j], quoted=True)
                i = j + 1
            elif c == '"':
                i = self.quoted(i + 1, self.word, '"')
            elif c == "`":
                i = self.backticks(i + 1, self.word)
            elif c == "$":
                i = self.dollar(i, self.word, in_quotes=False)
            elif c in ";&|<>()":
                i = self.operator(i)
            else:
                if c in "*?[{":
                    self.word.pattern = True
                run = _PLAIN.match(s, i + 1)
                j = run.end() if run else i + 1
                self.word.add(s[i:j])
                i = j
        self.end_command()
        if self.depth:
            raise Unparsable("an unclosed (")

    def joined(self, i: int) -> None:
        """A backslash and newline at `i`, which bash removes before it reads the line: next to an
        operator or a `$` they make another one (`$\\<newline>(id)` is `$(id)`)."""
        self.out.doubt("a line joined to the next by a backslash")
        if self.s[i - 1:i] in tuple("$;&|<>()") or self.s[i + 2:i + 3] in tuple(";&|<>()"):
            self.out.cannot_read("a backslash and newline next to an operator or a $")

    def end_word(self) -> None:
        w, self.word = self.word, Word()
        if not w.started:
            return
        if self.target:
            self.redirect(self.target, w)
            self.target = ""
            return
        bare = w.text if w.static and not w.quoted else None
        if bare in ("{", "}") and not self.cmd:  # a group's braces
            return
        if bare == "{" and len(self.cmd) in (2, 3) and self.cmd[0].text == "function":  # `function f {`
            self.end_command()
            return
        self.cmd.append(w)

    def end_command(self) -> None:
        self.end_word()
        if self.target:  # a redirection without a target: bash would not run it
            self.out.redirects = True
            self.target = ""
        if self.cmd:
            self.out.commands.append(self.cmd)
            self.cmd = []

    def redirect(self, op: str, w: Word) -> None:
        if op in ("<<", "<<-"):
            self.heredocs.append((w.text, w.quoted, op == "<<-", len(self.out.commands)))
            self.out.redirects = True
        elif not (op in (">&", "<&") and w.static and re.fullmatch(r"[0-9]*-?", w.text)) and (
                op == "<<<" or not (w.static and w.text == "/dev/null")):  # `2>&1`, `<&-`, /dev/null: no file
            self.out.redirects = True

    def operator(self, i: int) -> int:
        s = self.s
        op = next(o for o in OPERATORS if s.startswith(o, i))
        if op in ("<(", ">("):  # process substitution: a word, whose text runs as a command
            self.end_word()
            j = self.closing(i + 2, "(", ")")
            self.out.inner.append(s[i + 2:j - 1])
            self.out.doubt(SUBSTITUTION)
            self.word.add(s[i:j], static=False)
            return j
        if op[0] in "<>" or op.startswith("&>"):
            w = self.word
            if (op[0] in "<>" and w.started and not w.quoted and w.static
                    and re.fullmatch(r"[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\}", w.text)):
                self.word = Word()  # `2>`, `{fd}>`: the descriptor, not a word
            else:
                self.end_word()
            if self.target:
                self.out.redirects = True
            self.target = op
            return i + len(op)
        if op == "(" and s.startswith("((", i) and not self.word.started and [x.text for x in self.cmd] in ([], ["for"]):
            j = self.closing(i + 1, "(", ")")  # `(( … ))`, `for (( … ))`: arithmetic
            body = s[i + 2:j - 2] if s[j - 2:j] == "))" else s[i + 1:j - 1]
            self.arithmetic(body)
            self.out.inner.append(s[i + 1:j - 1])  # (or a subshell in a subshell)
            self.cmd.append(Word(s[i:j], started=True, static=False))
            self.end_command()
            return j
        self.end_command()
        if op == "(":
            self.depth += 1
        elif op == ")":
            self.depth -= 1
            if self.depth < 0:
                raise Unparsable("a ) that closes nothing")
        return i + len(op)

    def read_bodies(self, i: int) -> int:
        """The here-documents that begin after the newline before `i`; where the line goes on."""
        s = self.s
        for delimiter, quoted, strip, command in self.heredocs:
            lines = []
            while i < len(s):
                end = len(s) if (nl := s.find("\n", i)) < 0 else nl
                line, i = s[i:end], end + 1
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                lines.append(line)
            body = "\n".join(lines)
            if not quoted:  # `$(…)` and the rest are expanded in it, quotes are not quotes
                self.quoted(0, Word(), None, body)
            self.out.bodies.append((command, body))
        self.heredocs = []
        return i

    # words -----------------------------------------------------------------------------------
    def quoted(self, i: int, w: Word, end: str | None, text: str | None = None) -> int:
        """Double-quoted text from `i` to `end` (None: a here-document's, to its end); after it."""
        s = self.s if text is None else text
        reader = self if text is None else _Reader(text, self.out)
        w.add("", quoted=True)
        while i < len(s):
            c = s[i]
            if end is not None and c == end:
                return i + 1
            if c == "\\" and s[i + 1:i + 2] in ("$", "`", '"', "\\", "\n") and s[i + 1:i + 2]:
                if s[i + 1] != "\n":
                    w.add(s[i + 1])
                else:
                    reader.joined(i)
                i += 2
            elif c == "$":
                i = reader.dollar(i, w, in_quotes=True)
            elif c == "`":
                i = reader.backticks(i + 1, w)
            else:
                run = _PLAIN_QUOTED.match(s, i + 1)
                j = run.end() if run else i + 1
                w.add(s[i:j])
                i = j
        if end is not None:
            raise Unparsable('an unclosed "')
        return i

    def backticks(self, i: int, w: Word) -> int:
        s, j = self.s, i
        text: list[str] = []
        while j < len(s):
            if s[j] == "\\" and j + 1 < len(s):
                text.append(s[j + 1] if s[j + 1] in "$`\\" else s[j:j + 2])
                j += 2
            elif s[j] == "`":
                self.out.inner.append("".join(text))
                self.out.doubt(SUBSTITUTION)
                w.add(s[i - 1:j + 1], static=False)
                return j + 1
            else:
                text.append(s[j])
                j += 1
        raise Unparsable("an unclosed `")

    def dollar(self, i: int, w: Word, in_quotes: bool) -> int:
        s, nxt = self.s, self.s[i + 1:i + 2]
        if nxt == "'" and not in_quotes:
            self.out.doubt("$'…' quoting")
            return self.ansi_c(i + 2, w)
        if nxt == '"' and not in_quotes:
            self.out.doubt('$"…" quoting')
            return self.quoted(i + 2, w, '"')
        if nxt == "(":
            j = self.closing(i + 2, "(", ")")
            if s.startswith("$((", i) and s[j - 2:j] == "))":
                self.arithmetic(s[i + 3:j - 2])
            self.out.inner.append(s[i + 2:j - 1])
            self.out.doubt(SUBSTITUTION)
        elif nxt == "[":
            j = self.closing(i + 2, "[", "]")
            self.arithmetic(s[i + 2:j - 1])
            self.out.doubt("$[…] arithmetic")
        elif nxt == "{":
            j = self.closing(i + 2, "{", "}")
            self.parameter(s[i + 2:j - 1])
        elif m := NAME.match(s, i + 1):
            j = m.end()
            if m.group() == "_":
                self.out.doubt("$_ (the last word of the command before)")
        elif nxt and nxt in SPECIALS:
            j = i + 2
        else:  # a `$` before nothing it expands is a `$`
            w.add("$")
            return i + 1
        w.add(s[i:j], static=False)
        return j

    def ansi_c(self, i: int, w: Word) -> int:
        s, j = self.s, i
        text: list[str] = []
        while j < len(s):
            c = s[j]
            if c == "'":
                w.add("".join(text), quoted=True)
                return j + 1
            if c != "\\" or j + 1 == len(s):
                text.append(c)
                j += 1
            elif m := _ANSI_NUMBER.match(s, j + 1):
                digits = m.group()
                code = int(digits, 8) if digits[0] in "01234567" else int(digits[1:], 16)
                text.append(chr(min(code, 0x10FFFF)) if code < 0xD800 or code > 0xDFFF else "?")
                j = m.end()
            elif s[j + 1] == "c":  # a control character: not followed here
                self.out.cannot_read("$'\\c…'")
                text.append(s[j:j + 2])
                j += 2
            else:
                text.append(_ESCAPES.get(s[j + 1], s[j:j + 2]))
                j += 2
        raise Unparsable("an unclosed $'")

    def parameter(self, body: str) -> None:
        """`${body}`: plain, or an operator whose word is only expanded; else bash evaluates text."""
        if NAME.fullmatch(body) or body.isdigit() or (len(body) == 1 and body in SPECIALS):
            if body == "_":
                self.out.doubt("$_ (the last word of the command before)")
            return
        self.out.doubt("a ${…} expansion with an operator")
        if re.fullmatch(r"#([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])", body):  # a length
            return
        m = _STRING_OP.match(body)
        if m is None:  # `${x:1}`, `${a[i]}`, `${!x}`, `${x@P}`: evaluated as a number, a name, a prompt
            self.out.cannot_read("a ${…} that evaluates text (an offset, a subscript, ! or @P)")
            return
        rest = body[m.end():]
        if any(q in rest for q in "'\"\\"):
            self.out.cannot_read("quotes inside ${…}")
        self.quoted(0, Word(), None, rest)

    def arithmetic(self, body: str) -> None:
        self.out.doubt("arithmetic")
        if _ARITH_WORDS.search(body):
            self.out.cannot_read("arithmetic on a name ($((…)), $[…], ((…)): bash evaluates its value again")

    def closing(self, i: int, opening: str, close: str) -> int:
        """Just after what closes the `opening` before `i`, past quotes and nested groups."""
        s, depth = self.s, 1
        while i < len(s):
            c = s[i]
            if c == "\\":
                i += 2
                continue
            if c == "'":
                if (j := s.find("'", i + 1)) < 0:
                    raise Unparsable("an unclosed '")
                i = j + 1
                continue
            if c == '"':
                i = _Reader(s, Lexed()).quoted(i + 1, Word(), '"')
                continue
            if c == "`":
                i = _Reader(s, Lexed()).backticks(i + 1, Word())
                continue
            if c == "#" and (i == 0 or s[i - 1] in " \t\n;&|()"):
                i = len(s) if (nl := s.find("\n", i)) < 0 else nl
                continue
            if c == opening:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise Unparsable(f"an unclosed {opening}")
