"""Help and errors that read as written: typer's defaults show `{paths}... <list[Path]>` for a list
argument and `[x>=2048]` for a bound, and a bad option value as the usage block, a `Try ... for
help.` line and `Error: Invalid value for '--x': Input should be a valid integer, unable to parse
string as an integer`. Ours say `PATH...` and, for any option or argument the command line cannot
take, one line: `compact-agent: --context-window: expected a whole number of tokens such as 32000,
32k or 128K, not 'abc'` (exit 2; the numbers are read by cli_numbers.py). `fail` is that line for
the errors the command line finds itself (and print mode's JSON error object when the run asked for
JSON)."""

from __future__ import annotations

import re
import shlex
import sys
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from .cli_numbers import TOKENS_EXAMPLE
from .stop_signals import nothing_spent as nothing_spent  # the result objects' spending fields, here too
from .words import quoted


class _AsWritten(TyperArgument):
    """An argument shown by its metavar alone (`PATH...`), where typer would write `{paths}...` in
    the usage line and `<list[Path]>` in the help."""

    def _usage_display_name(self) -> str:
        return self.display_name_raw

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


#: The command line library's usage error (typer's own copy of click's), which every parse error is.
_USAGE_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def error_object(message: str) -> str:
    """The JSON line a print-mode run asked for JSON (`--output-format json|stream-json`) prints on
    stdout when it fails before its session is opened (docs/usage.md), secrets hidden."""
    import json

    from . import secrets

    return json.dumps({"type": "result", "subtype": "error", "is_error": True, "error": secrets.redact(message),
                       "result": None, "cut_off": False, "session_id": None, "duration_ms": 0,
                       **nothing_spent()}) + "\n"


def json_error(message: str) -> str:
    """`{"error": "..."}` and a newline: what a subcommand asked for `--json` (analyze) prints on
    stdout when it fails, besides its one line on stderr, so a script that parses stdout gets an
    object saying why rather than nothing; secrets hidden."""
    import json

    from . import secrets

    return json.dumps({"error": secrets.redact(message)}) + "\n"


#: Whether a failure before a print-mode run's turn starts is also print mode's JSON error object
#: on stdout (the run asked for `--output-format json|stream-json`): a bad setting, an MCP config
#: that could never run is one JSON object too, as every later failure is (print_mode.py).
_errors_as_json: str | None = None


def errors_as_json(on: bool, shape: str = "result") -> None:
    """Say `fail`'s errors as JSON objects on stdout too (see `_errors_as_json`), or not: print mode's
    result object, or, `shape` "error", the `{"error": ...}` of a subcommand given `--json`."""
    global _errors_as_json
    _errors_as_json = shape if on else None


def without_keys(message: str) -> str:
    """`message` with every provider key in it redacted: those of the environment and the one given
    with `--api-key`, also when the line is said before they are learned (a usage error; a key put
    after the wrong option, `-r sk-…`, `--context-window sk-…`, is quoted by the line that refuses it)."""
    from . import secrets
    from .redacted_output import learn_keys

    learn_keys(None)
    return secrets.redact(message)


def fail(message: str, code: int = 1) -> typer.Exit:
    """The command line's one-line error (and print mode's JSON error object when asked for), as
    the exit to raise: `raise fail("...", 2)`."""
    from .ui.visible import visible

    message = without_keys(message)
    sys.stderr.write(visible(f"compact-agent: {message}") + "\n")
    if _errors_as_json:
        sys.stdout.write(error_object(message) if _errors_as_json == "result" else json_error(message))
    return typer.Exit(code)


def say_interrupted(as_json: bool = False) -> int:
    """A Ctrl-C under the command line, before print mode's own handler or outside it: `compact-agent:
    interrupted` (and, once a `-p` run's prompt is saved, how it goes on), and with print mode's JSON
    output (`as_json`, or as the command decided) the result object documented for Ctrl-C
    (stop_signals.interrupted: "error_interrupted", signal SIGINT), not a plain error; a subcommand
    given `--json`, its `{"error": ...}`. The exit status, 130."""
    if _errors_as_json == "error":
        return fail("interrupted", 130).exit_code
    from .stop_signals import interrupted

    return interrupted(as_json or _errors_as_json == "result")


class OneLineUsage(_USAGE_ERROR):  # type: ignore[misc,valid-type]
    """A usage error said in one line on stderr, exit 2: no usage block, no `Try ... for help.`.
    `as_json`: the command line asked for print mode's JSON, so the error is that object on stdout
    too, as every later failure of such a run is; `error_json`: a subcommand was given `--json`
    (analyze), so the error is its `{"error": ...}` object on stdout too (`json_error`)."""

    exit_code = 2

    def __init__(self, line: str, as_json: bool = False, error_json: bool = False) -> None:
        super().__init__(line)
        self.line = line
        self.as_json = as_json
        self.error_json = error_json

    def format_message(self) -> str:
        return without_keys(self.line)

    def show(self, file: Any = None) -> None:
        from .ui.visible import visible

        line = without_keys(self.line)
        (file or sys.stderr).write(visible(f"compact-agent: {line}") + "\n")
        if self.as_json:
            sys.stdout.write(error_object(line))
        elif self.error_json:
            sys.stdout.write(json_error(line))


#: What an option that was given no value takes, said in that one line.
ACCEPTS = {"--context-window": f"a number of tokens {TOKENS_EXAMPLE}", "--window": "a number of tokens such as 64000 or 64k",
           "--max-turns": "a number of model requests, 1 or more", "--output-format": "text, json or stream-json",
           "--base-url": "an address such as http://localhost:8000/v1"}


def usage_line(e: Any, command_path: str, command: Any = None) -> str:
    """The one line for a usage error `e` of `command`, called `command_path` (`compact-agent analyze`)."""
    message = str(getattr(e, "message", "") or e).strip()
    param = getattr(e, "param", None)
    see = f"see {command_path} --help"
    opts = [o for o in getattr(param, "opts", []) if o.startswith("-")]
    name = max(opts, key=len) if opts else None
    kind = type(e).__name__
    option = getattr(e, "option_name", None) or ""
    if kind == "NoSuchOption":
        close = close_options(option or message, getattr(e, "possibilities", None) or [], command)
        guess = f"; did you mean {' or '.join(close)}?" if close else ""
        return f"no such option {option or message}{guess} ({see})"
    if kind == "BadOptionUsage" and "requires an argument" in message:
        takes = ACCEPTS.get(option) or _metavar(command, option)
        return f"{option} needs a value{f': {takes}' if takes else ''} ({see})"
    if kind == "BadOptionUsage" and "does not take a value" in message:
        return f"{option} takes no value ({see})"
    if kind == "MissingParameter" and param is not None and name is None:
        return f"{command_path.split()[-1]} needs {getattr(param, 'metavar', None) or param.name} ({see})"
    if name is not None and kind == "BadParameter":
        return f"{name}: {message}"
    if (extra := _EXTRA.search(message)) is not None:  # `config model`: click's 'Got unexpected extra argument(s)'
        return f"{command_path.split()[-1]} takes no arguments, not {quoted(extra[1])} ({see})"
    text = e.format_message().strip().rstrip(".")
    return f"{text[:1].lower()}{text[1:]} ({see})"


_EXTRA = re.compile(r"unexpected extra arguments?(?:\(s\))? \((.*)\)$")


#: How alike an unknown option and a real one must be to be suggested (difflib's ratio). Click
#: suggests at 0.6, where `--bogus` got `--verbose` and `--verbos` got `--version` and `--yes` too.
OPTION_CUTOFF = 0.75


def close_options(typed: str, possibilities: list[str], command: Any = None) -> list[str]:
    """The options to suggest for `typed`, among those click found near it: one genuinely close
    (`--modle`: --model, `--cdw`: --cwd), or one it begins (`--output`: --output-format) or names a
    word of (`--window`: --context-window, `--tools`: --allowed-tools). Never a hidden one."""
    from difflib import SequenceMatcher

    hidden = {o for p in getattr(command, "params", []) if getattr(p, "hidden", False) for o in p.opts}
    word = typed.lstrip("-")

    def close(option: str) -> bool:
        name = option.lstrip("-")
        return (SequenceMatcher(None, typed, option).ratio() >= OPTION_CUTOFF
                or len(word) >= 3 and (name.startswith(word) or word in name.split("-")))

    return sorted(o for o in possibilities if o not in hidden and close(o))


def _metavar(command: Any, option: str) -> str | None:
    """The metavar of `command`'s option named `option` (`NAME`)."""
    for param in getattr(command, "params", []):
        if option in getattr(param, "opts", []) and getattr(param, "metavar", None):
            return str(param.metavar)
    return None


def option_as_value(command: Any, args: list[str], optional: tuple[str, ...] = ()) -> int | None:
    """Where in `args` an option that takes a value is followed by another of `command`'s options
    (`--model --output-format json`, `-m -y`, `--model -p`): the parser would take that option's
    name for the value, and what came after it for the query or a command. The first one's index,
    or None. A value that only begins with a dash is a value (`--append-system-prompt "-x is
    broken"`); one that is an option's very name goes joined to its option (`--model=-c`, `-m-c`).
    Options in `optional` may go without a value (`--resume`), hidden ones are ours (the moved
    query: any text); the search ends at `--` and at a subcommand's name."""
    params = getattr(command, "params", [])
    hidden = {o for p in params if getattr(p, "hidden", False) for o in (*p.opts, *p.secondary_opts)}
    flags = option_names(command, flags=True) | {"--help", "-h"}  # the app's help_option_names
    known = option_names(command, flags=False) | flags
    takes = known - flags
    commands = getattr(command, "commands", {})
    i = 0
    while i < len(args) and args[i] != "--":
        a = args[i]
        if (option := value_option(a, takes, flags)) is not None:
            after = args[i + 1] if i + 1 < len(args) else ""
            if option not in hidden and option not in optional and names_option(after, known, flags):
                return i
            i += 2
            continue
        if not a.startswith("-") and a in commands:
            return None
        i += 1
    return None


def missing_value(command: Any, args: list[str], command_path: str, *, top: bool,
                  optional: tuple[str, ...] = ()) -> OneLineUsage | None:
    """The one-line error for an option followed by another option instead of its value (see
    `option_as_value`), naming the one missing its value; on the top-level command (`top`) also
    print mode's JSON error object when the rest of the line asks for it. None: no such option."""
    at = option_as_value(command, args, optional)
    if at is None:
        return None
    other = args[at + 1].partition("=")[0]
    option = value_option(args[at], option_names(command, flags=False), option_names(command, flags=True)) or args[at]
    takes = ACCEPTS.get(option) or _metavar(command, option)
    line = f"{option} needs a value{f': {takes}' if takes else ''}, not the option {other} (see {command_path} --help)"
    return OneLineUsage(line, top and wants_json(command, args[:at] + args[at + 1:]))


class _OneLineErrors:
    """Parse errors of a command (a bad option value, a missing value or argument, an unknown
    option) become one line (OneLineUsage)."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        given = list(args)  # the parser takes from `args` as it goes
        error_json = parent is not None and asks_for_json(self, given)
        if parent is not None:  # a subcommand's own (the top level's: split_query, before it moves the query)
            path = f"{parent.command_path} {info_name}"
            if (error := missing_value(self, given, path, top=False)) is not None:
                error.error_json = error_json
                raise error
        try:
            return super().make_context(info_name, args, parent=parent, **extra)  # type: ignore[misc]
        except OneLineUsage:
            raise
        except _USAGE_ERROR as e:
            path = " ".join(p for p in ((parent.command_path if parent is not None else "compact-agent"),
                                        info_name if parent is not None else None) if p)
            line = None
            if parent is not None:  # an option of the chat command given after the subcommand's name
                from .cli_misplaced import before_the_command

                own = option_names(self, flags=False), option_names(self, flags=True)
                line = before_the_command(e, parent, info_name or "", given, own)
            line = line or one_value_each(e, self, given, path)
            raise OneLineUsage(line or usage_line(e, path, self), parent is None and wants_json(self, given),
                               error_json) from None


def one_value_each(e: Any, command: Any, given: list[str], path: str) -> str | None:
    """`sessions --delete A B`: a repeatable option given several values after one name. It said
    'sessions takes no arguments, not 'B'', of a command that takes those ids, one per --delete."""
    extra = _EXTRA.search(str(getattr(e, "message", "") or e))
    words = extra[1].split() if extra is not None else []
    at = given.index(words[0]) if words and words[0] in given else -1
    option = given[at - 2] if at >= 2 else ""
    if not any(option in p.opts and getattr(p, "multiple", False) for p in getattr(command, "params", [])):
        return None
    more = next((given[at:n] for n in range(at, len(given)) if given[n].startswith("-")), given[at:])
    each = shlex.join(x for w in (given[at - 1], *more) for x in (option, w))
    return f"{option} takes one {_metavar(command, option) or 'value'} at a time: give each its own ({each})"


def asks_for_json(command: Any, args: list[str]) -> bool:
    """Whether a subcommand with a `--json` flag (analyze, config) was given it, before any `--`."""
    given = args[:args.index("--")] if "--" in args else args
    return "--json" in given and "--json" in option_names(command, flags=True)


def option_names(command: Any, *, flags: bool) -> set[str]:
    """The names of `command`'s flags (`flags`), or of its options that take a value."""
    return {o for p in getattr(command, "params", []) if bool(getattr(p, "is_flag", False)) == flags
            for o in (*p.opts, *p.secondary_opts)}


def value_option(arg: str, takes: set[str], flags: set[str]) -> str | None:
    """The option in `arg` that takes the next argument for its value: `arg` itself (`--model`,
    `-m`), or the last of short options written together after flags (`-pm NAME`, as `-p -m NAME`).
    None: `arg` takes nothing from the next one (a flag, a value joined on: `--model=x`, `-mx`)."""
    if arg in takes:
        return arg
    if re.fullmatch(r"-[a-zA-Z]{2,}", arg) and f"-{arg[-1]}" in takes and all(f"-{c}" in flags for c in arg[1:-1]):
        return f"-{arg[-1]}"
    return None


def names_option(arg: str, known: set[str], flags: set[str]) -> bool:
    """Whether `arg` is one of the `known` options (their names are the command's own): a long one,
    with or without `=VALUE`, a short one (`-c`, `-p`), or short flags written together (`-yc`)."""
    if arg.startswith("--"):
        return arg.partition("=")[0] in known
    return arg in known or (re.fullmatch(r"-[a-zA-Z]{2,}", arg) is not None
                            and all(f"-{c}" in flags for c in arg[1:]))


def wants_json(command: Any, args: list[str]) -> bool:
    """Whether `args`, which the command line library could not take, still ask for print mode with
    JSON output (`-p` and `--output-format json` or `stream-json`, each given whole): a script that
    reads the JSON gets its error object also when another option is bad."""
    printing, output = _print_args(command, args)
    return printing and output in ("json", "stream-json")


def print_mode(command: Any, args: list[str]) -> bool:
    """Whether `args` ask for print mode: `-p`, `--print`, or `-p` among short flags written together."""
    return _print_args(command, args)[0]


def _print_args(command: Any, args: list[str]) -> tuple[bool, str | None]:
    """Whether `args` give `-p`, and the `--output-format` they give, read before any `--`."""
    takes_value = {o for p in getattr(command, "params", []) if not getattr(p, "is_flag", False)
                   for o in (*p.opts, *p.secondary_opts)}
    printing, output = False, None
    i = 0
    while i < len(args) and args[i] != "--":
        a = args[i]
        if a.startswith("--output-format="):
            output = a.partition("=")[2]
        elif a in takes_value:
            if a == "--output-format" and i + 1 < len(args):
                output = args[i + 1]
            i += 1  # its value, whatever it looks like
        elif a == "--print" or re.fullmatch(r"-[a-zA-Z]*p[a-zA-Z]*", a) and all(
                f"-{c}" not in takes_value for c in a[1:]):  # -p, or -yp: flags together
            printing = True
        i += 1
    return printing, output


class OneLineGroup(_OneLineErrors, TyperGroup):
    """The top-level command: its parse errors in one line, and a Ctrl-C under it. The command-line
    library ended an interrupt with 130 and no word (in `sessions`, `config`, the seconds before the
    REPL or a `-p` run takes over), where print mode and `main()` said `compact-agent: interrupted`;
    a `-p` run's JSON output ends with the result object a Ctrl-C gets later (`say_interrupted`)."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        given = list(args)  # the parser takes from `args` as it goes
        try:
            ctx = super().make_context(info_name, args, parent=parent, **extra)
        except KeyboardInterrupt:
            raise typer.Exit(say_interrupted(wants_json(self, given))) from None
        from .cli_unused import COMMAND_LINE

        ctx.meta[COMMAND_LINE] = given  # a subcommand's error line repeats what came before its name
        return ctx

    def invoke(self, ctx: Any) -> Any:  # the subcommand's too: it runs inside
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise typer.Exit(say_interrupted()) from None


class OneLineCommand(_OneLineErrors, TyperCommand):
    """A subcommand whose parse errors are one line."""


class ReadableCommand(OneLineCommand):
    """A command whose help reads as written: arguments given a metavar show just that."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is TyperArgument and param.metavar:
                param.__class__ = _AsWritten
