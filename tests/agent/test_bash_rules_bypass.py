"""Bash allow and deny rules hold against lines bash reads otherwise than a simple splitter does.

An allow rule (`--allowed-tools 'bash(pytest *)'`, `allow_bash = ["ls *"]`) ran any command, unasked,
hidden from the rule check by a comment (`pytest --version #'<newline>touch F #'`: the check read the
quoted `#'…'` as one word, bash a comment, then a second line), by `$'\\''` quoting (a quote character
to bash, a closed-then-opened quote to the check, so `; id > F ;` were real to bash only), or by an
expansion that evaluates text again (`$[_]`, `${_@P}`, `${a[_]}`, `${HOME:_}`, `$((_))` run the
`$(…)` held in the word before, `x\\[\\$\\(id\\)\\]`). A deny rule (`deny_bash = ["rm *"]`) let the same
spellings through. Each line here goes through `Permissions.check`, the check the bash tool makes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Permissions

PAYLOAD = r"x\[\$\(touch\ /tmp/PWN\)\]"  # the text of a substitution, no `$(` in the line as written

HIDDEN_BY_SPELLING = [
    "pytest --version #'\ntouch /tmp/PWN #'",
    'pytest --version #"\nid > /tmp/PWN #"',
    "pytest --version $'\\'' ; id > /tmp/PWN ; pytest --version \\'",
    "pytest --version $\"x\" ; pytest",
]
EVALUATED_AGAIN = [
    r"pytest --version x\[\$\(id\>/tmp/PWN\)\]; pytest --version $[_]",
    r"pytest --version \$\(id\>/tmp/PWN\); pytest --version ${_@P}",
    "pytest --version 'x[$''(touch /tmp/PWN)]'; pytest --version $[_]",
    f"pytest --version {PAYLOAD}; pytest --version ${{a[_]}}",
    f"pytest --version {PAYLOAD}; pytest --version ${{HOME:_}}",
    f"pytest --version {PAYLOAD}; pytest --version $(( _ ))",
    f"pytest --version {PAYLOAD}; pytest --version $_",
    f"pytest {PAYLOAD}",  # the payload alone: a command that evaluates its words would run it
    "pytest $[1+1]", "pytest ${!x}", "pytest ${x:-y}",
]
RUN_THEIR_WORDS = [
    "printf -v 'a[_]' x", "declare -i x=_", "read 'a[_]'", "test -v 'a[_]'", "[[ _ -eq 1 ]]", "let _",
    "eval pytest", "source ./pytest", "trap 'touch /tmp/PWN' EXIT", "hash -p /tmp/evil pytest",
]
RUNNERS = ["env pytest", "xargs pytest", "timeout 5 pytest", "bash -c pytest", "sudo pytest", "PATH=/tmp pytest"]
ODD_CHARACTERS = ["pyt\\\nest -q", "pytest $\\\n{_@P}", "pytest\r", "pytest -q\rtouch /tmp/PWN", "pytest <<EOF\nx\nEOF", "pytest <<< x",
                  "{pytest,-q}", "pytes? -q", "$CMD -q", "pytest 'unclosed", "pytest $'unclosed"]


@pytest.mark.parametrize("line", HIDDEN_BY_SPELLING + EVALUATED_AGAIN + ODD_CHARACTERS)
def test_an_allow_rule_does_not_cover_what_bash_reads_otherwise(tmp_path: Path, line: str) -> None:
    perms = Permissions(tmp_path, "deny", allow_bash=["pytest *", "pytest", "id *", "ls *"])
    assert "needs approval" in (perms.check("bash", line) or ""), line


@pytest.mark.parametrize("line", RUN_THEIR_WORDS)
def test_a_rule_naming_a_builtin_does_not_cover_it(tmp_path: Path, line: str) -> None:
    """`printf -v 'a[_]'` evaluates a subscript, `eval` and `source` run text: a builtin is not covered
    even where a rule names it (but echo, printf without -v, pwd, cd, test without -v, true, false)."""
    perms = Permissions(tmp_path, "deny", allow_bash=[f"{line.split()[0]} *", "*"])
    assert "needs approval" in (perms.check("bash", line) or ""), line


@pytest.mark.parametrize("line", RUNNERS)
def test_a_command_that_runs_its_words_is_covered_only_by_a_rule_naming_it(tmp_path: Path, line: str) -> None:
    """...and naming what it runs (`bash_rules._keys`): `env *` covered `env rm -rf ~`."""
    perms = Permissions(tmp_path, "deny", allow_bash=["* pytest", "*", f"{line.split()[0]} *"])
    assert "needs approval" in (perms.check("bash", line) or ""), line
    named = Permissions(tmp_path, "deny", allow_bash=[line, f"{line} *"])
    assert named.check("bash", line) is None, line
    assert named.check("bash", f"{line} -q") is None, line


def test_the_refusal_says_what_the_rule_did_not_cover(tmp_path: Path) -> None:
    perms = Permissions(tmp_path, "deny", allow_bash=["pytest *"])
    said = perms.check("bash", "pytest --version $'\\'' ; id > /tmp/PWN ; pytest --version \\'")
    assert said == ("permission denied: bash needs approval (a line with $'…' quoting is not covered by "
                    "bash(pytest *)); rerun with --yes to allow")
    assert "`touch /tmp/PWN` is not covered by bash(pytest *)" in (
        perms.check("bash", "pytest --version #'\ntouch /tmp/PWN #'") or "")
    assert "shell builtin declare" in (Permissions(tmp_path, "deny", allow_bash=["declare *"]).check(
        "bash", "declare -i x=_") or "")


@pytest.mark.parametrize("line", [
    "pytest -q", "pytest -q  tests/", "pytest -q 2>&1 | tail -5", "pytest -q > /dev/null", "pytest -q # the tests",
    "ls '#x' a#b", 'ls "$HOME" $HOME/src ${HOME}', "ls *.py {a,b}", "ls; ls -la", "ls\nls -la",
    "grep -rn '${x}' src", "echo hi && pwd", "cd src && pytest -q", "printf '%s\\n' a", "test -f x && ls",
    "[ -f x ] && ls", "test -f x || ls",
])
def test_an_allow_rule_still_covers_plain_lines(tmp_path: Path, line: str) -> None:
    perms = Permissions(tmp_path, "deny", allow_bash=["pytest *", "ls *", "ls", "tail *", "grep *", "echo *",
                                                      "pwd", "cd *", "printf *", "test *", "[ *"])
    assert perms.check("bash", line) is None, line


@pytest.mark.parametrize("line", [
    "echo #'\nrm -f victim #'", "echo $'\\'' ; rm -f victim ; echo \\'", "$'\\x72m' -f victim",
    f"echo {PAYLOAD}; echo $[_]", f"echo {PAYLOAD}; echo ${{_@P}}", f"echo {PAYLOAD}; echo ${{a[_]}}",
    "if rm -f victim; then :; fi", "while rm -f victim; do break; done", "{rm,-f,victim}", "/bin/r? -f victim",
    "$X -f victim", "bash <<EOF\nrm -f victim\nEOF", "cat <<EOF\n$(rm -f victim)\nEOF", "echo ${x:-$(rm -f victim)}",
    "a[_]=1", "printf -v 'a[_]' 1", 'bash -c "$X"', "r\\\nm -f victim", "function f { rm -f victim; }; f",
    "echo 'unclosed", "case x in x) rm -f victim;; esac", f"echo {PAYLOAD}; (\\\n(_))",
    "echo $\\\n(rm -f victim)", 'echo "$\\\n(rm -f victim)"', "printf -v'a[_]' 1", "wait -p 'a[_]'",
    "trap 'rm -f victim' EXIT",
])
def test_a_deny_rule_holds_a_line_it_cannot_read(tmp_path: Path, line: str) -> None:
    """Deny rules see the command bash runs; a line whose commands cannot be told from it (bash
    evaluates text again, a command named by an expansion, quotes that do not close) is refused
    too where deny rules are set, even with --yes: it could run any of them."""
    perms = Permissions(tmp_path, "yes", deny_bash=["rm *"])
    assert "deny rule" in (perms.check("bash", line) or ""), line
    assert Permissions(tmp_path, "yes").check("bash", line) is None  # no deny rule: --yes runs it


@pytest.mark.parametrize("line", [
    "ls -la", "echo $'a\\tb'", "git status # rm -f x", "echo '#' rm", "cat <<'EOF' > notes.md\nit's rm -f x\nEOF",
    "echo ${HOME}/x $HOME", "for i in 1 2; do echo $i; done", "echo $((1+2))", "pytest -q 2>&1 | tail -3",
    'export PATH="$HOME/bin:$PATH"', 'f() { local x="$1"; printf \'%s\\n\' "$x"; }; f a', "read -r line < x",
    "[ -f x ] && [[ -n $HOME ]]", "ec\\\nho joined", "printf -v x '%s' 1",
])
def test_a_deny_rule_lets_plain_lines_run(tmp_path: Path, line: str) -> None:
    assert Permissions(tmp_path, "yes", deny_bash=["rm *"]).check("bash", line) is None, line


def test_a_line_nested_thousands_deep_is_held_not_raised(tmp_path: Path) -> None:
    """`"$("$("…` nested past Python's recursion limit raised RecursionError out of the check."""
    line = '"$(' * 3000
    assert "deny rule" in (Permissions(tmp_path, "yes", deny_bash=["rm *"]).check("bash", line) or "")
    assert "needs approval" in (Permissions(tmp_path, "deny", allow_bash=["*"]).check("bash", line) or "")


def test_the_refusal_says_whether_a_rule_matched_or_the_line_could_not_be_read(tmp_path: Path) -> None:
    """A line held because what it runs cannot be told was refused as if a command of it matched
    the rule: 'command matches deny rule 'rm *'' of `echo $[_]`, which runs no rm."""
    perms = Permissions(tmp_path, "yes", deny_bash=["rm *", "git push *"])
    assert perms.check("bash", "ls; rm -f x") == "permission denied: command matches deny rule 'rm *'"
    assert perms.check("bash", "echo $'a' #'\ngit push origin") == "permission denied: command matches deny rule 'git push *'"
    held = perms.check("bash", f"echo {PAYLOAD}; echo $[_]") or ""
    assert held.startswith("permission denied: what the command runs cannot be told (") and "matches" not in held, held
    assert held.endswith("so the deny rules ('rm *', 'git push *') cannot be checked"), held
