"""The first message given on the command line as a positional (`compact-agent "fix the test"`,
`compact-agent -p --model x "q"`), moved to the hidden `--query` option before click parses the line:
click cannot give a group a positional beside its subcommands (`config`, `analyze`, `sessions`).
A prompt not in quotes, a misspelt subcommand and an option left without its value are each said in
one line here, before the query is moved off the line."""

from __future__ import annotations

import re
from typing import Any

from .cli_help import (
    OneLineUsage,
    missing_value,
    names_option,
    option_names,
    print_mode,
    value_option,
    wants_json,
)
from .cli_input import given_twice, misspelt_command, unquoted_prompt
from .words import quoted as in_quotes


def split_query(argv: list[str], group: Any) -> list[str]:
    """Move the positional QUERY to the hidden `--query` option.

    Every argument after `--` is a word of the prompt (`-p -- fix the test`, `-- -p hi`), joined by
    spaces: none is an option or a command there. A prompt also given before `--` is one line.

    `compact-agent [OPTIONS] [QUERY]` as in Claude Code, with `-p` a flag (so `-p --model x "q"`
    works); click cannot give a group a positional beside its subcommands, so the first positional
    that is not a subcommand (`config`, `analyze`, `sessions`) is moved here. `--resume` without a
    value (last, or followed by an option) becomes `--resume ""`: pick from a list. `group`: the
    command line's click group (the Typer app's).
    """
    if (error := missing_value(group, argv, "compact-agent", top=True, optional=("--resume", "-r"))) is not None:
        raise error  # `--model --output-format json`: said before the query is moved off the line
    takes_value, flags = option_names(group, flags=False), option_names(group, flags=True)
    out: list[str] = []
    query: str | None = None
    words: list[str] = []  # positionals after the query: a prompt not in quotes
    known = takes_value | flags | {"--help", "-h"}
    unknown = False  # the argument before was an unknown option: this one may be its value
    quoted = False  # the query came after `--`
    version = False  # `--version` (or `-v`) was given: it takes no word beside it
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":  # every word after it is the prompt's, whatever it resembles (`-- confg`, `-- -p hi`)
            after = argv[i + 1:]
            if after and query is not None:  # `-p hi -- extra words`: which is the prompt?
                printing = print_mode(group, argv)
                raise OneLineUsage(given_twice([query, *words], after, printing), printing and wants_json(group, argv))
            if after:
                query, quoted = " ".join(after), True
            break
        if a in ("--resume", "-r") and (i + 1 == len(argv) or argv[i + 1].startswith("-")):
            out += [a, ""]
            i += 1
            continue
        if a.startswith("-") and a != "-":
            out.append(a)
            version = version or _asks_version(a, takes_value, flags)
            unknown = not names_option(a, known, flags) and a[:2] not in takes_value  # `-mNAME` is known
            if value_option(a, takes_value, flags) is not None and i + 1 < len(argv):  # also `-pm NAME`
                out.append(argv[i + 1])
                unknown = False  # its value taken: the next word is none of it
                i += 1
            i += 1
            continue
        if query is None and a in getattr(group, "commands", {}):
            if version:  # `--version config`: the version, or the command?
                raise _version_alone(argv[i:], group, argv, prompt=False)
            return out + argv[i:]
        if query is None and a == "help" and i == len(argv) - 1:
            return [*out, "--help"]  # `compact-agent help` is help, not a first message
        if query is None and a == "help" and i == len(argv) - 2 and argv[-1] in getattr(group, "commands", {}):
            return [*out, argv[-1], "--help"]  # `help analyze`: the command's help, not a prompt to quote
        if unknown:  # click says the unknown option (`-p x --contxt-window 3`, `--modle x -p hi`)
            out.append(a)
        elif query is None:
            query = a
        else:
            words.append(a)
        unknown = False
        i += 1
    if version and query is not None:  # `--version extra` printed the version, the word ignored
        raise _version_alone([query, *words], group, argv)
    if query is not None and words:
        printing = print_mode(group, argv)
        raise OneLineUsage(unquoted_prompt([query, *words], printing, getattr(group, "commands", {})),
                           printing and wants_json(group, argv))
    if query is not None and not quoted and (meant := misspelt_command(query, getattr(group, "commands", {}))):
        printing = print_mode(group, argv)  # `compact-agent confg`: no prompt to pay a request for
        raise OneLineUsage(f"{in_quotes(query)} is not a command; did you mean {meant}? (to send it as a prompt: "
                           f"compact-agent {'-p ' if printing else ''}-- {query})", printing and wants_json(group, argv))
    if query is not None and not quoted and SESSION_ID.fullmatch(query):
        printing = print_mode(group, argv)  # `compact-agent -c ID`: the newest session, sent its id as a prompt
        resume = f"compact-agent -r {query} -p \"QUERY\" continues it" if printing else f"compact-agent -r {query} resumes it"
        raise OneLineUsage(f"{in_quotes(query)} is a session id, not a prompt: {resume} (to send it as a prompt: "
                           f"compact-agent {'-p ' if printing else ''}-- {query})", printing and wants_json(group, argv))
    # The query first: an option left without its value at the end (`-p x --model`) must not take it.
    return (["--query", query] if query is not None else []) + out


#: A session's id (`20261207-082306-37d5df`, session/files.py), or the start of one that -r takes.
SESSION_ID = re.compile(r"\d{8}-\d{6}(-[0-9a-f]{1,6})?")


def _asks_version(arg: str, takes: set[str], flags: set[str]) -> bool:
    """Whether the option `arg` is `--version`, `-v`, or short flags written together with `v`
    among them (`-yv`; not `-mv`, the model `v`)."""
    if arg.startswith("--"):
        return arg == "--version"
    if not names_option(arg, flags, flags):  # a value joined on (`-mv`), or an unknown option
        return False
    return "v" in arg[1:]


def _version_alone(words: list[str], group: Any, argv: list[str], prompt: bool = True) -> OneLineUsage:
    """`--version` with a word beside it. With -p the word is the prompt, not an argument of
    --version's: `-p hi --version` said `--version takes no arguments, not 'hi'`. `prompt`: False
    for a command's name (`--version config`)."""
    printing = print_mode(group, argv)
    if printing and prompt:
        return OneLineUsage(f"--version is not used with a prompt: {in_quotes(' '.join(words))} is -p's prompt "
                            "(compact-agent --version alone prints the version)", wants_json(group, argv))
    return OneLineUsage(f"--version takes no arguments, not {in_quotes(' '.join(words))} (see compact-agent --help)",
                        printing and wants_json(group, argv))
