"""`deny_bash` / `allow_bash` matched on what bash will run, not on how the line is spelled.

A rule is a glob over one simple command (`rm -rf *`, `git push *`). Matching the raw line lets
spelling through: `rm  -rf /`, `rm\\t-rf /`, `\\rm -rf /`, `'rm' -rf /`, `(rm -rf /)`,
`{ rm -rf /; }`, `FOO=1 rm -rf /`, `/bin/rm -rf /`, `bash -c 'rm -rf /'`. So the line is read the
way bash reads it (bash_lex.py: quotes, backslashes, comments, `$'…'`, operators, newlines) and
each simple command is matched with its words joined by one space; for deny rules also without
leading assignments and wrappers (`env`, `command`, `sudo`, …), with the program's base name, and
inside `bash -c '…'` / `eval` and `$(…)`. A line whose commands cannot be told from it (bash
would evaluate text again: `$[_]`, `${_@P}`, `$((x))`; a command named by `$cmd`; quotes that do
not close) is held to every deny rule: it could be any of them. In the REPL such a line (no rule
matching a command of it) is asked about instead, the reason shown, no is the default and "always"
is not offered (`held_why`, permissions.py); `--yes`, print mode and where nobody can answer, it is
refused.

An allow rule is narrower on purpose: it covers a simple command only when the line has no
redirection to a file (`pytest > ~/.bashrc` writes a file no rule named; `2>&1` and `>/dev/null`
are fine), no substitution, no expansion but a plain `$NAME`, no `$'…'`, and nothing it cannot
read, and every simple command of the line matches an allow rule by itself. A shell builtin or
keyword is never covered (`declare`, `read`, `printf -v`, `[[` evaluate a `name[…]` given them;
`eval`, `source`, `trap` run text), except the few that only print or test (`echo`, `printf`,
`pwd`, `cd`, `test`, …). A word that makes a command run another command, delete or write files
is covered only where the rule spells that word out itself, never by a `*` or a glob standing for it
(`_keys`): find's `-exec`, `-execdir`, `-ok`, `-okdir`, `-delete`, `-fprint*`, `-fls` (`find *` does
not cover `find . -exec rm {} +`; `find * -exec grep *` covers `find . -exec grep x {} +`, and
not a second `-exec` after it); a shell's `-c` (`bash *` does not cover `bash -c '…'`, `bash -c *`
does); the command a wrapper runs (`env`, `xargs`, `sudo`, `timeout`, `nice`, `nohup`, …) and the
wrapper, and the name of a command run with an assignment (`xargs *` and `env *` cover no command
run by them, `xargs grep *` covers `xargs grep -n x`, `timeout * pytest *` covers `timeout 60
pytest -q`, `PATH=/tmp *` nothing); every word but options of the other commands that run their
words (`watch`, `flock`, `chroot`, `su`, `parallel`, `script`). A program that runs code it is
given (`python *`, `make *`, `awk *`, `git *` with its aliases) is the rule's own choice: an allow
rule for it covers what that code does.

A wrapper's options are skipped as its own, and a value given to one is read as the command it runs
(`sudo -u root *` spells out `root`, and its `*` then stands for any command: write `sudo -u root
pytest *`). A deny rule also sees the commands find runs (`find . -exec rm {} +` is refused by `rm *`).
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Iterator, Sequence

from ...words import quoted
from .bash_lex import SUBSTITUTION, Lexed, Word, lex

#: Words that run the command after them (their own options are skipped too).
WRAPPERS = frozenset({"command", "builtin", "exec", "nohup", "time", "sudo", "doas", "env", "nice",
                      "ionice", "stdbuf", "timeout", "xargs", "then", "do", "else", "!", "if", "elif",
                      "while", "until", "coproc", "setsid"})
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
#: Commands that run their words as a command: an allow rule covers one only where it names it.
RUNNERS = WRAPPERS | SHELLS | {"eval", "source", ".", "chroot", "watch", "flock", "su", "parallel", "script"}
#: find's actions that run a command, delete or write files: covered only where a rule spells them out.
FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})
#: find's actions whose words, up to `;` or `+`, are a command it runs.
FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
#: bash's builtins and keywords (`compgen -b -k`): an allow rule covers none but PLAIN_BUILTINS.
BUILTINS = frozenset(
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs "
    "disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local "
    "logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend "
    "test times trap true type typeset ulimit umask unalias unset wait if then else elif fi case esac for "
    "select while until do done in function time { } ! [[ ]] coproc".split())
#: Builtins that neither run nor evaluate their words (but `printf -v` and `test -v`, which do).
PLAIN_BUILTINS = frozenset({"echo", "printf", "pwd", "true", "false", "cd", "test", "[", ":"})
#: Builtins that evaluate the subscript of a `name[…]` given them (`printf -v 'a[$(id)]' x` runs `id`):
#: those that take names, and those that take one after an option (`printf -v NAME`, `test -v NAME`).
NAMING = frozenset({"declare", "typeset", "local", "export", "readonly", "read", "unset", "mapfile",
                    "readarray", "getopts"})
NAME_AFTER = {"printf": "-v", "test": "-v", "[": "-v", "[[": "-v", "wait": "-p"}
_ASSIGNED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: Text bash would run if it were evaluated again: refused by an allow rule however it is quoted.
_SUBST = re.compile(r"\$\(|`|<\(|>\(|\$\[")
MAX_DEPTH = 4  # `bash -c "bash -c '…'"`: deep enough for a real line, bounded for a hostile one


def _core_at(words: Sequence[str]) -> int:
    """Where the command is, past leading assignments and wrappers (and the wrappers' options)."""
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
    return i


def _cores(words: list[str]) -> Iterator[list[str]]:
    """The command as written, then without leading assignments / wrappers, and its base name."""
    yield words
    i = _core_at(words)
    rest = words[i:]
    if rest:
        if i:
            yield rest
        if "/" in rest[0]:
            yield [rest[0].rsplit("/", 1)[1], *rest[1:]]


def _found_commands(words: list[str]) -> Iterator[list[str]]:
    """The commands find runs (`find . -exec rm {} +`: `rm {}`), as deny rules see them."""
    for core in _cores(words):
        if core and core[0].rsplit("/", 1)[-1] == "find":
            for i, w in enumerate(core):
                if w in FIND_RUNS:
                    end = next((j for j in range(i + 1, len(core)) if core[j] in (";", "+")), len(core))
                    if end > i + 1:
                        yield core[i + 1:end]


def _keys(words: Sequence[str]) -> set[int]:
    """Which of a command's `words` an allow rule must spell out itself (see the module's docstring)."""
    if not words:
        return set()
    base = words[0].rsplit("/", 1)[-1]
    if base == "find":
        return {i for i, w in enumerate(words) if w in FIND_ACTIONS}
    if base in SHELLS:
        return {0} | {i for i, w in enumerate(words) if i and re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", w)}
    if base in WRAPPERS or _ASSIGN.match(words[0]):
        at = _core_at(words)
        chain = {i for i in range(at) if words[i] in WRAPPERS or _ASSIGN.match(words[i])}
        return chain | ({at} | {at + k for k in _keys(words[at:])} if at < len(words) else set())
    if base in RUNNERS:
        return {0} | {i for i, w in enumerate(words) if i and not w.startswith("-")}
    return set()


def _spelt(words: Sequence[str], keys: set[int], pattern: Sequence[str]) -> bool:
    """Whether the rule's words `pattern` match the command's `words` one by one, a `*` of its own
    standing for any words but `keys`, which only the same word in the rule matches."""
    seen: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        if (i, j) not in seen:
            if i == len(pattern):
                seen[i, j] = j == len(words)
            elif pattern[i] == "*":  # any words up to a key word
                k = j
                while not match(i + 1, k) and k < len(words) and k not in keys:
                    k += 1
                seen[i, j] = match(i + 1, k)
            else:
                seen[i, j] = j < len(words) and (words[j] == pattern[i] if j in keys else
                                                 fnmatch.fnmatchcase(words[j], pattern[i])) and match(i + 1, j + 1)
        return seen[i, j]

    return match(0, 0)


def _inner_lines(words: list[str]) -> Iterator[str]:
    """What a shell, `eval` or `trap` runs from its arguments (`bash -c '…'`, `eval '…'`, `trap '…' EXIT`)."""
    for core in _cores(words):
        name = core[0].rsplit("/", 1)[-1] if core else ""
        if name == "eval":
            yield " ".join(core[1:])
        elif name == "trap" and len(core) > 1 and not core[1].startswith("-"):
            yield core[1]
        elif name in SHELLS:
            for j, w in enumerate(core[1:], 1):
                if w.startswith("-") and "c" in w[1:] and j + 1 < len(core):
                    yield core[j + 1]
                    break


def _unread(words: list[Word]) -> str | None:
    """Why the command `words` runs cannot be told from them (bash evaluates some of them again)."""
    texts = [w.text for w in words]
    at = _core_at(texts)
    if at == len(words):
        return None
    name, args = words[at], words[at + 1:]
    if _named_by_expansion(name):
        return "a command named by an expansion or a pattern"
    base = name.text.rsplit("/", 1)[-1]
    said = {a.text for a in args}
    if base == "let" or (base == "[[" and said & {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"}):
        return f"{base}, which evaluates its words as arithmetic"
    if base in NAMING:
        names = [a for a in args if not _ASSIGNED.match(a.text) and not (a.static and a.text.startswith("-"))]
    elif option := NAME_AFTER.get(base):
        names = [b for a, b in zip(args, args[1:], strict=False) if a.text == option]
        names += [Word(a.text[2:], static=a.static) for a in args if a.text.startswith(option) and a.text != option]
    else:
        names = []
    if any("[" in a.text or not a.static for a in names):
        return f"a name[…] given to {base}, whose subscript bash evaluates"
    if base in ("declare", "typeset", "local", "export", "readonly") and any(
            re.fullmatch(r"[-+][A-Za-z]*[in][A-Za-z]*", a.text) for a in args):
        return f"{base} -i or -n, whose values bash evaluates"
    if base == "eval" and not all(a.static for a in args):
        return "eval of an expansion"
    if base in SHELLS:
        for j, a in enumerate(args):
            if a.text.startswith("-") and "c" in a.text[1:]:
                if j + 1 < len(args) and not args[j + 1].static:
                    return f"{base} -c given an expansion"
                break
    return None


def _named_by_expansion(name: Word) -> bool:
    """Whether bash makes the command's name of `name` by an expansion or a pattern (`[` is a name)."""
    return not name.static or (name.pattern and name.text not in ("[", "[["))


def _substitutions(line: str) -> Iterator[str]:
    """Text inside `$(…)` and backticks, quoted or not (roughly: a deny rule looks in what a command
    may evaluate later)."""
    yield from re.findall(r"\$\(([^()]*)\)", line)
    yield from re.findall(r"`([^`]*)`", line)


def _norm(pattern: str) -> str:
    return " ".join(pattern.split())


def denied_by(line: str, patterns: Sequence[str], depth: int = 0, strict: bool = True) -> str | None:
    """The first deny pattern matching any simple command of `line` (or the raw line), or None.

    A line bash would run otherwise than it reads (`Lexed.unread`) gets the first pattern: what it
    runs could be any (`strict` False: text only looked into, whose reading decides nothing)."""
    if not patterns:
        return None
    pats = [(p, _norm(p)) for p in patterns]
    raw = line.strip()
    candidates = [raw, " ".join(raw.split())]
    lexed = lex(line)
    inner = [(text, True) for text in lexed.inner] + [(text, False) for text in _substitutions(line)]
    unread = lexed.unread
    for words in lexed.commands:
        texts = [w.text for w in words]
        candidates += [" ".join(core) for core in _cores(texts)]
        candidates += [" ".join(core) for found in _found_commands(texts) for core in _cores(found)]
        inner += [(text, True) for text in _inner_lines(texts)]
        unread = unread or _unread(words)
    for command, body in lexed.bodies:  # `bash <<EOF`: the here-document is the script
        texts = [w.text for w in lexed.commands[command]] if command < len(lexed.commands) else []
        at = _core_at(texts)
        if at < len(texts) and texts[at].rsplit("/", 1)[-1] in SHELLS | {"source", "."}:
            inner.append((body, True))
    for pat, norm in pats:
        # `git push *` denies a bare `git push` too: the rule names the command, not its arguments
        forms = {pat, norm, norm[:-2]} if norm.endswith(" *") else {pat, norm}
        if any(fnmatch.fnmatchcase(c, f) for c in candidates for f in forms):
            return pat
    for text, sure in inner:
        if depth >= MAX_DEPTH:
            unread = unread or "commands nested too deep"
        elif hit := denied_by(text, patterns, depth + 1, strict and sure):
            return hit
    return pats[0][0] if unread and strict else None


def deny_words(line: str, pattern: str, rules: Sequence[str] = ()) -> str:
    """What a refusal by the deny rules (`denied_by` gave `pattern`) says of `line`: the rule a
    command of it matches, or, where none does, that what it runs cannot be told (bash evaluates
    part of it again as text), so no deny rule (`rules`, all of them: said as they are, the first
    few and `…` where there are more) can be checked."""
    if denied_by(line, [pattern], strict=False) is not None:
        return f"command matches deny rule {quoted(pattern)}"
    rules = list(rules) or [pattern]
    said = ", ".join(map(quoted, rules[:SAID_RULES])) + (", …" if len(rules) > SAID_RULES else "")
    return (f"what the command runs cannot be told ({unread_why(line)}), so the deny "
            f"{'rules' if len(rules) > 1 else 'rule'} ({said}) cannot be checked")


#: How many deny rules a refusal names before `…`.
SAID_RULES = 3


def refusal_kind(text: str) -> tuple[str, str] | None:
    """What a tool's refusal `text` was: ("approval", why the allow rules did not cover it, or "")
    for a call that needed approval nobody gave, ("deny", its words) for one a deny rule stopped
    (bash, path or MCP deny rules, or a bash line they cannot read), else None (not a refusal of
    the user's rules: a path outside the working directory, a declined question)."""
    said = text.removeprefix("permission denied: ")
    if said == text:
        return None
    if " needs approval" in said:  # `bash needs approval (WHY); rerun with --yes to allow`
        return "approval", said.partition(" needs approval (")[2].rpartition("); rerun with --yes")[0]
    if "deny rule" in said or "of deny_tools" in said:
        return "deny", said.partition("; the user can change it by hand")[0]
    return None


def unread_why(line: str) -> str:
    """Why what `line` runs cannot be told from it (`arithmetic on a name …`)."""
    lexed = lex(line)
    why = lexed.unread or next((w for words in lexed.commands if (w := _unread(words))), None)
    return why or "commands nested too deep"


def held_why(line: str, patterns: Sequence[str]) -> str | None:
    """Why `line` is held to the deny `patterns` though no command of it matches one (what it runs
    cannot be told: it could be any of them), else None (a rule matches, or none holds it)."""
    if denied_by(line, patterns) is None or denied_by(line, patterns, strict=False) is not None:
        return None
    return unread_why(line)


def _not_covered(line: str, patterns: Sequence[str], lexed: Lexed) -> str | None:
    """Why the allow rules do not cover `line` (its words `lexed`), or None when they do."""
    rules = ", ".join(f"bash({p})" for p in patterns)
    words = [w for c in lexed.commands for w in c]
    if lexed.doubtful:
        return f"a line with {lexed.doubtful} is not covered by {rules}"
    if _SUBST.search(line) or any(_SUBST.search(w.text) for w in words):
        return f"a line with {SUBSTITUTION} is not covered by {rules}"
    if "\r" in line:
        return f"a line with a carriage return is not covered by {rules}"
    if lexed.redirects:
        return f"a line that redirects output to a file is not covered by {rules}"
    if not lexed.commands:
        return f"a line with no command is not covered by {rules}"
    norms = [_norm(p) for p in patterns]
    missing = []
    for command in lexed.commands:
        name = command[0]
        base = name.text.rsplit("/", 1)[-1]
        texts = [w.text for w in command]
        if _named_by_expansion(name):
            return f"a command named by an expansion or a pattern (`{shown(texts)}`) is not covered by {rules}"
        if base in BUILTINS and (base not in PLAIN_BUILTINS or any(w.startswith("-v") for w in texts[1:])):
            return f"`{shown(texts)}` runs the shell builtin {base}, which no allow rule covers ({rules})"
        keys = _keys(texts)  # the words a rule must spell out: `find . -exec rm {} +`'s -exec
        matched = [p for p in norms if fnmatch.fnmatchcase(" ".join(texts), p)]
        if not any(not keys or _spelt(texts, keys, p.split(" ")) for p in matched):
            if matched:  # a `*` of the rule stood for what it runs
                spelt = " ".join(shown([texts[k]]) for k in sorted(keys))
                such = f", such as bash({rule})" if (rule := _spelling_rule(texts, keys)) else ""
                return (f"`{shown(texts)}` is not covered by {rules}: a `*` of a rule does not stand for `{spelt}` "
                        f"(what it runs, deletes or writes); only a rule that spells it out covers it{such}")
            missing.append(shown(texts))
    if not missing:
        return None
    if len(lexed.commands) > 1:
        return (f"each command of a compound line must be allowed by itself, and `{missing[0]}` is not "
                f"covered by {rules}")
    return f"`{missing[0]}` is not covered by {rules}"


def _spelling_rule(words: list[str], keys: set[int]) -> str | None:
    """An allow rule that covers the command `words` by spelling out its `keys` (and the command a
    find action runs: `find * -exec rm *`), a `*` for the rest; None where no such rule can be said."""
    if words[0].rsplit("/", 1)[-1] in SHELLS:  # `bash -c *` would run anything: no rule to offer
        return None
    kept = {0} | keys | {k + 1 for k in keys if words[k] in FIND_RUNS and words[0].endswith("find")}
    parts: list[str] = []
    for i, w in enumerate(words):
        if i in kept:
            parts.append(w)
        elif not parts or parts[-1] != "*":
            parts.append("*")
    rule = " ".join(parts)
    return rule if "\n" not in rule and allowed_by(shown(words), [rule]) else None


def allowed_by(line: str, patterns: Sequence[str]) -> bool:
    """True when every simple command of `line` matches an allow pattern and nothing else rides
    along: no redirection, no substitution, no expansion but `$NAME`, nothing unread."""
    return bool(patterns) and _not_covered(line, patterns, lex(line)) is None


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
    return _not_covered(line, patterns, lex(line)) if patterns else None
