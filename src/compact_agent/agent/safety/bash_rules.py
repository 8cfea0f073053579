"""`deny_bash` / `allow_bash` matched on what bash will run, not on how the line is spelled.

A rule is a glob over one simple command (`rm -rf *`, `git push *`). Matching the raw line lets
spelling through: `rm  -rf /`, `rm\\t-rf /`, `\\rm -rf /`, `'rm' -rf /`, `(rm -rf /)`,
`{ rm -rf /; }`, `FOO=1 rm -rf /`, `/bin/rm -rf /`, `bash -c 'rm -rf /'`. So the line is parsed
the way the shell splits it (quotes and backslashes removed, operators `; & && || | ( ) { }` and
newlines separating commands) and each simple command is matched with its words joined by one
space; for deny rules also without leading assignments and wrappers (`env`, `command`, `sudo`, …),
with the program's base name, and inside `bash -c '…'` / `eval` and `$(…)`.

An allow rule is narrower on purpose: it covers a simple command only when the line has no
redirection to a file (`pytest > ~/.bashrc` writes a file no rule named; `2>&1` and `>/dev/null`
are fine), no substitution and nothing it cannot parse, and every simple command of the line
matches an allow rule by itself.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: Words that run the command after them (their own options are skipped too).
WRAPPERS = frozenset({"command", "builtin", "exec", "nohup", "time", "sudo", "doas", "env", "nice",
                      "ionice", "stdbuf", "timeout", "xargs", "then", "do", "else", "!"})
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SUBST = re.compile(r"\$\(|`|<\(|>\(")
MAX_DEPTH = 4  # `bash -c "bash -c '…'"`: deep enough for a real line, bounded for a hostile one


@dataclass
class Parsed:
    commands: list[list[str]]  # each simple command's words
    redirects: bool  # a `<`, `>` or `>>` anywhere
    clean: bool  # parsed whole, and no substitution


def parse(line: str) -> Parsed:
    """The simple commands of `line`; `clean` is False when shlex could not parse it."""
    lex = shlex.shlex(line.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lex.whitespace_split = True
    lex.commenters = ""
    commands: list[list[str]] = [[]]
    redirects = False
    try:
        tokens = list(lex)
    except ValueError:  # an unclosed quote: bash would not run it either, but a rule cannot trust it
        return Parsed([line.split()], True, False)
    target_of = ""  # the redirection operator whose target comes next
    for tok in tokens:
        if tok and all(c in ";&|()<>" for c in tok):
            if "<" in tok or ">" in tok:
                if tok.endswith("("):  # process substitution: a command of its own
                    redirects = True
                    if commands[-1]:
                        commands.append([])
                else:
                    target_of = tok  # `> file`: the target is not a word of the command
                continue
            if commands[-1]:
                commands.append([])
            continue
        if target_of:
            # `2>&1`, `>/dev/null` write nothing anywhere; any other target is a file no rule named
            if not (target_of.endswith("&") and (tok.isdigit() or tok == "-")) and tok != "/dev/null":
                redirects = True
            target_of = ""
            continue
        if tok == "}" or (tok == "{" and not commands[-1]):  # a group's braces (`echo {` keeps its word)
            if commands[-1]:
                commands.append([])
            continue
        commands[-1].append(tok)
    cmds = [c for c in commands if c]
    if target_of:  # a redirection without a target: not something to allow
        redirects = True
    return Parsed(cmds or [[]], redirects, not _SUBST.search(line))


def _cores(words: list[str]) -> Iterator[list[str]]:
    """The command as written, then without leading assignments / wrappers, and its base name."""
    yield words
    i = 0
    while i < len(words):
        w = words[i]
        if _ASSIGN.match(w):
            i += 1
        elif w in WRAPPERS:
            i += 1
            while i < len(words) and (words[i].startswith("-") or _ASSIGN.match(words[i]) or words[i].isdigit()):
                i += 1
        else:
            break
    rest = words[i:]
    if rest:
        if i:
            yield rest
        if "/" in rest[0]:
            yield [rest[0].rsplit("/", 1)[1], *rest[1:]]


def _inner_lines(words: list[str]) -> Iterator[str]:
    """What a shell or `eval` runs from its arguments (`bash -c '…'`, `eval '…'`)."""
    for core in _cores(words):
        name = core[0].rsplit("/", 1)[-1] if core else ""
        if name == "eval":
            yield " ".join(core[1:])
        elif name in SHELLS:
            for j, w in enumerate(core[1:], 1):
                if w.startswith("-") and "c" in w[1:] and j + 1 < len(core):
                    yield core[j + 1]
                    break


def _substitutions(line: str) -> Iterator[str]:
    """Text inside `$(…)` and backticks (roughly: enough for a deny rule to look inside)."""
    yield from re.findall(r"\$\(([^()]*)\)", line)
    yield from re.findall(r"`([^`]*)`", line)


def _norm(pattern: str) -> str:
    return " ".join(pattern.split())


def denied_by(line: str, patterns: Sequence[str], depth: int = 0) -> str | None:
    """The first deny pattern matching any simple command of `line` (or the raw line), or None."""
    if not patterns:
        return None
    pats = [(p, _norm(p)) for p in patterns]
    raw = line.strip()
    candidates = [raw, " ".join(raw.split())]
    parsed = parse(line)
    inner: list[str] = list(_substitutions(line))
    for words in parsed.commands:
        for core in _cores(words):
            candidates.append(" ".join(core))
        inner += _inner_lines(words)
    for pat, norm in pats:
        # `git push *` denies a bare `git push` too: the rule names the command, not its arguments
        forms = {pat, norm, norm[:-2]} if norm.endswith(" *") else {pat, norm}
        if any(fnmatch.fnmatchcase(c, f) for c in candidates for f in forms):
            return pat
    if depth < MAX_DEPTH:
        for text in inner:
            if hit := denied_by(text, patterns, depth + 1):
                return hit
    return None


def allowed_by(line: str, patterns: Sequence[str]) -> bool:
    """True when every simple command of `line` matches an allow pattern and nothing else rides
    along: no redirection, no substitution, nothing unparsed."""
    if not patterns:
        return False
    parsed = parse(line)
    if not parsed.clean or parsed.redirects or not parsed.commands or not parsed.commands[0]:
        return False
    norms = [_norm(p) for p in patterns]
    return all(any(fnmatch.fnmatchcase(" ".join(words), p) for p in norms) for words in parsed.commands)


def shown(words: list[str]) -> str:
    """A simple command as a shell line, for the refusal's words: `python -c 'print(1)'`, `echo "it's"`.
    It was Python's repr of the words joined, unquoted: `"echo it's"`, `'printf a\\\\tb'`. A line
    with a backtick is never covered (a substitution), so the command goes between backticks."""
    def word(w: str) -> str:
        if "'" in w and not re.search(r'["$\\!]', w):
            return f'"{w}"'
        return shlex.quote(w)
    return " ".join(word(w) for w in words)


def why_not_allowed(line: str, patterns: Sequence[str]) -> str | None:
    """Why the allow rules do not cover `line`, in words for the refusal (None when they do, or
    when there are none): `sleep 1 && echo hi` under `sleep *` is refused for its `echo hi`."""
    if not patterns or allowed_by(line, patterns):
        return None
    rules = ", ".join(f"bash({p})" for p in patterns)
    parsed = parse(line)
    if not parsed.clean:
        return f"a line with a substitution ($(…), backticks) or unbalanced quotes is not covered by {rules}"
    if parsed.redirects:
        return f"a line that redirects output to a file is not covered by {rules}"
    norms = [_norm(p) for p in patterns]
    missing = [shown(w) for w in parsed.commands if not any(fnmatch.fnmatchcase(" ".join(w), p) for p in norms)]
    if not missing:
        return None
    if len(parsed.commands) > 1:
        return (f"each command of a compound line must be allowed by itself, and `{missing[0]}` is not "
                f"covered by {rules}")
    return f"`{missing[0]}` is not covered by {rules}"
