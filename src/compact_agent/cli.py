"""Command line: the REPL (default), print mode (`-p`), and `analyze`.

Every failure the user can cause or fix (no key, unreachable endpoint, bad flag, locked or missing
session) ends in one clear line on stderr and a nonzero exit, never a traceback. Beside this file:
cli_help.py (help, one-line parse errors, `fail`), cli_numbers.py (numbers as written: `32k`),
cli_input.py (the prompt from the query and stdin), cli_settings.py (settings, endpoint and key
checked at start), cli_warnings.py (library warnings, and a current directory gone, as one line each),
cli_resume.py (the session `-c`/`-r` opens and the options it runs with), cli_print.py (`-p` up to the
run: the prompt saved, the signals armed), cli_query.py (the first message given beside the subcommands).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .cli_allowed import allowed_rules
from .cli_help import (
    OneLineCommand,
    OneLineGroup,
    OneLineUsage,
    errors_as_json,
    fail,
    say_interrupted,
)
from .cli_input import as_text, with_stdin
from .cli_numbers import count, tokens
from .cli_query import split_query
from .cli_settings import (
    endpoint,
    key_and_window,
    load_settings,
    protect_key,
    refuse_empty_model,
    routing_note,
    url_problem,
)
from .cli_strategies import AnalyzeCommand
from .cli_warnings import route_library_warnings, working_dir
from .error_text import describe_error
from .price_setting import ModelPrices, parse_prices
from .terminal_text import fit_streams
from .ui.typeahead import quiet_typeahead
from .ui.visible import visible
from .words import quoted

if TYPE_CHECKING:
    from .cli_resume import SessionSettings

app = typer.Typer(cls=OneLineGroup, add_completion=False, no_args_is_help=False, rich_markup_mode=None,
                  subcommand_metavar="[QUERY] | COMMAND [ARGS]...",
                  context_settings={"help_option_names": ["-h", "--help"]})


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("compact-agent")
        except PackageNotFoundError:
            v = "unknown (not installed)"
        sys.stdout.write(f"compact-agent {v}\n")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def main_command(
    ctx: typer.Context,
    print_: Annotated[bool, typer.Option("-p", "--print", help="Run one turn non-interactively and print the answer: compact-agent -p \"QUERY\" (stdin is joined to it; QUERY '-' reads it all from stdin).")] = False,
    query: Annotated[str | None, typer.Option("--query", hidden=True)] = None,  # the positional QUERY (see main)
    model: Annotated[str | None, typer.Option("--model", "-m", metavar="NAME", help="Model name (default deepseek-chat).")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", metavar="URL", help="OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp); its key is --api-key or OPENAI_API_KEY.")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", metavar="KEY", help="API key (else read from OPENAI_API_KEY; without --base-url, from DEEPSEEK_API_KEY for a deepseek-* model and ANTHROPIC_API_KEY for a claude-* one).")] = None,
    context_window: Annotated[int | None, typer.Option("--context-window", metavar="TOKENS", parser=tokens(), help="Override the model's context window (tokens: 32000, 32k or 128K; with the built-in tools at least 4K: a smaller window is refused with its minimum).")] = None,
    prices: Annotated[ModelPrices | None, typer.Option("--prices", metavar="IN,CACHED,OUT", parser=parse_prices, help="The model's prices, USD per million tokens: input, cached input, output[, cache write], e.g. 0.27,0.07,1.10 (0,0,0: free). Without them a model not in the registry compacts at the threshold only.")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve writes, edits and commands without asking.")] = False,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="Resume the newest session of this directory.")] = False,
    resume: Annotated[str | None, typer.Option("--resume", "-r", metavar="ID", help="Resume the session with this id (without an id: pick from a list).")] = None,
    output_format: Annotated[str, typer.Option("--output-format", metavar="FORMAT", help="text | json | stream-json (print mode).")] = "text",
    cwd: Annotated[Path | None, typer.Option("--cwd", metavar="DIR", help="Working directory (default: current).")] = None,
    add_dir: Annotated[list[Path] | None, typer.Option("--add-dir", metavar="DIR", help="Another directory the tools may write in (repeatable).")] = None,
    allowed_tools: Annotated[list[str] | None, typer.Option("--allowed-tools", metavar="TOOL", help="Run without asking: write_file, edit_file or bash (read_file, grep and glob never ask, and are taken too), bash(PATTERN), e.g. 'bash(pytest *)', or an MCP server's tool as the model calls it (SERVER_TOOL, e.g. docs_search); repeatable or comma-separated.")] = None,
    max_turns: Annotated[int | None, typer.Option("--max-turns", metavar="N", parser=count(1, "model requests"), help="At most this many model requests per user turn.")] = None,
    append_system_prompt: Annotated[str | None, typer.Option("--append-system-prompt", metavar="TEXT", help="Text added to the end of the system prompt.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="Print mode: show each tool call, result and compaction on stderr.")] = False,
    version: Annotated[bool, typer.Option("--version", "-v", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """compact-agent [OPTIONS] [QUERY]: a coding agent whose context never runs out.

    Without -p, starts the interactive REPL (with QUERY as its first message)."""
    if ctx.invoked_subcommand is not None:
        # The settings a subcommand reads as flags, and the key apart: `compact-agent --api-key K analyze`
        # sends analyze's summaries with it, and no command takes a key for a setting.
        from .cli_unused import given
        from .redacted_output import redact_output

        redact_output(api_key)  # no key given here or in the environment is printed (redacted_output.py)
        ctx.obj = {"model": model, "base_url": base_url, "context_window": context_window, "prices": prices,
                   "max_requests_per_turn": max_turns, "cwd": cwd, "api_key": api_key, "given": given(ctx)}
        return
    with quiet_typeahead(not print_ and query != "-"):
        _main(print_, query, model, base_url, api_key, context_window, yes, continue_, resume, output_format, cwd,
              add_dir, allowed_tools, max_turns, append_system_prompt, verbose, prices)


def _main(print_: bool, query: str | None, model: str | None, base_url: str | None, api_key: str | None,
          context_window: int | None, yes: bool, continue_: bool, resume: str | None, output_format: str,
          cwd: Path | None, add_dir: list[Path] | None, allowed_tools: list[str] | None, max_turns: int | None,
          append_system_prompt: str | None, verbose: bool, prices: ModelPrices | None = None) -> None:
    if output_format not in ("text", "json", "stream-json"):
        raise fail(f"--output-format must be text, json or stream-json, not {quoted(output_format)}", 2)
    errors_as_json(print_ and output_format != "text")
    if output_format != "text" and not print_:  # the REPL writes for a person: JSON was meant for -p
        raise fail(f"--output-format applies to print mode (-p): compact-agent -p --output-format {output_format} "
                   '"QUERY"', 2)
    if verbose and not print_:  # the REPL shows each tool call, result and compaction anyway
        sys.stderr.write("compact-agent: warning: --verbose applies to print mode (-p) only; the REPL shows "
                         "tool calls, results and compactions without it\n")
    if continue_ and resume is not None:
        raise fail("--continue and --resume both pick a session; give one of them", 2)
    from .agent.run.options import SessionOptions

    work = working_dir(cwd)
    if not work.is_dir():
        raise fail(f"working directory {work} {'is not a directory' if work.exists() else 'does not exist'}", 2)
    api_key = protect_key(api_key)
    tools, patterns = allowed_rules(allowed_tools or [])
    loaded = load_settings(work, model=model, base_url=base_url, context_window=context_window,
                           max_requests_per_turn=max_turns, prices=prices)
    from .config import home_problem

    if (problem := home_problem()) is not None:
        raise fail(problem, 2)
    missing = [d for d in add_dir or [] if not d.is_dir()]
    if missing:
        what = "is a file, not a directory" if missing[0].exists() else "no such directory"
        raise fail(f"--add-dir {missing[0]}: {what}", 2)
    from .cli_resume import CommandLine, as_remembered, resumed_file
    from .models import UsageError

    # A resumed session runs with the options it was started with, unless they are given again.
    resumed = resumed_file(work, continue_, resume)
    given = {k: v for k, v in (("model", model), ("base_url", base_url), ("context_window", context_window),
                               ("max_turns", max_turns), ("append_system_prompt", append_system_prompt),
                               ("prices", prices.as_list() if prices else None))
             if v is not None}
    line = CommandLine(work, given, loaded, [str(d.resolve()) for d in add_dir or []], patterns)

    def options_for(path: Path | None) -> SessionSettings:  # `/config` names what the session remembers
        return as_remembered(line.for_session(path))

    try:
        session = options_for(resumed)
    except UsageError as e:
        raise fail(str(e), 2) from None
    if session.note is not None:  # a remembered endpoint the model given now does not go to
        sys.stderr.write(visible(f"compact-agent: note: {session.note}") + "\n")
    model, base_url = session.model, session.get("base_url")
    context_window, append_system_prompt = session.get("context_window"), session.get("append_system_prompt")
    loaded = session.loaded
    settings = loaded.settings
    if query:  # bytes of the command line that are not UTF-8 come as lone surrogates, which no request can carry
        query = as_text(query.encode("utf-8", "surrogateescape"), "the prompt")
    typed = "" if query in (None, "-") else query  # `@path` attaches only in what the user typed, not in a pipe
    stdin = sys.stdin  # None when the process has none (pythonw)
    asked, piped = query, stdin is not None and not stdin.isatty()
    if print_ or query == "-":
        query = with_stdin(query)
    if print_ and not (query or "").strip():
        if asked == "-":  # it was to come from stdin, and none came
            raise fail('-p - reads the prompt from stdin, and stdin was empty (or give it: compact-agent -p "QUERY")', 2)
        if asked is not None:  # `-p "   "`: a prompt was given, and it is blank
            raise fail(f"-p needs a prompt: the one given is blank{' and stdin was empty' if piped else ''} "
                       '(compact-agent -p "QUERY")', 2)
        if piped:
            raise fail('-p needs a prompt: none was given and stdin was empty (compact-agent -p "QUERY")', 2)
        raise fail('-p needs a prompt: compact-agent -p "QUERY", or pipe it on stdin', 2)
    if print_ and resume == "":
        raise fail("--resume needs a session id in print mode (compact-agent sessions lists them)", 2)
    name = model or settings.model
    if model is not None and not model.strip():
        raise fail("--model needs a model name (e.g. --model deepseek-chat), not an empty one", 2)
    if model is None:
        refuse_empty_model(loaded)
    base_url = endpoint(base_url, loaded)
    if (note := routing_note(name, base_url, context_window or settings.context_window)):
        sys.stderr.write(visible(f"compact-agent: note: {note}") + "\n")
    opts = SessionOptions(
        cwd=work, model=name, base_url=base_url, api_key=api_key,
        context_window=context_window, permission_mode="yes" if yes else ("deny" if print_ else "ask"),
        # the session `resumed_file` chose, by its id: found again by -c, a session started meanwhile would
        # be opened with the options of the one found first
        session_id=resumed.stem if resumed is not None else resume or None, continue_last=continue_,
        settings=settings, allowed_tools=tools,
        append_system_prompt=append_system_prompt or "", config=loaded,
    )
    key_and_window(opts)  # both said, where both are missing
    from .session import remembered

    remember = session.remember
    if print_:
        from .cli_print import run_print_mode

        with remembered.remembering(remember):
            raise typer.Exit(run_print_mode(opts, query or "", output_format, verbose, typed))
    if sys.stdin is None or not sys.stdin.isatty():  # closed (`<&-`): none either
        raise fail('the REPL needs a terminal on stdin; for a script or a pipe use -p: echo "QUERY" | compact-agent -p', 2)
    from .ui import repl_signals
    from .ui.repl import run_repl
    from .ui.session_picker import Left

    repl_signals.say_when_terminated()  # SIGTERM, SIGHUP: the terminal put back, one line on how to resume
    try:
        with remembered.remembering(remember):
            asyncio.run(run_repl(opts, first_message=query, pick_session=resume == "", options_for=options_for))
    except Left as e:  # Esc or Ctrl-C at -r's list: as an interrupt elsewhere, with what it left undone
        raise fail(str(e), 130) from None
    except BrokenPipeError:  # the terminal writes to its file directly: `compact-agent | head` (pipes.py);
        from .pipes import ReaderGone  # not an OSError, which the command-line library would end with 1

        raise ReaderGone from None
    except Exception as e:  # noqa: BLE001 - the REPL reports, never dumps
        from .models import UsageError

        raise fail(describe_error(e), 2 if isinstance(e, UsageError) else 1) from None


@app.command("config", cls=OneLineCommand, short_help="Print the settings in effect and where each came from.")
def config_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    forget_window: Annotated[str | None, typer.Option("--forget-window", metavar="URL|all", help="Forget the context window learned from the server at URL, as listed (every model there; only NAME's with compact-agent -m NAME config), or every one: all. Sessions there, new or resumed, then start in the window given or assumed.")] = None,
    forget_server: Annotated[str | None, typer.Option("--forget-server", metavar="URL|all", help="Forget all that was learned from the server at URL, as listed: its context windows, and that it wants user messages sent joined (every model there; only NAME's with compact-agent -m NAME config), or from every server: all. Runs there then start in the window given or assumed, and send user messages apart, until the server shows otherwise.")] = None,
) -> None:
    """Print the effective settings and where each came from, then what was learned from servers.

    Where from: default, user file, project file, env (a COMPACT_AGENT_* variable), flag, or the
    model's own window and prices (for a model not known: a window assumed, prices not known). A
    flag is an option of the chat command given before the word config, not after it:
    compact-agent -m NAME config. Those read are --model, --base-url, --context-window, --prices,
    --max-turns and --cwd.

    Marks: an arrow after a source (→) gives what a run uses instead of the value set: a token figure scaled
    down for the window (default → 800 in the 8,000-token window), or a window learned from the server. A
    window learned from the server comes from no setting: the server showed it, answering that a prompt was
    too long (named in a refusal) or cutting prompts to it, and it is remembered per endpoint and model, so a
    later session there with no window given starts within it. The lists at the end name each window kept, how
    and when it was learned (--forget-window forgets it), and each server and model user messages are sent
    joined to (--forget-server forgets all learned of a server)."""
    from .cli_unused import say_unused
    from .cli_windows import forget_learned
    from .config import home_dir
    from .settings_in_use import for_settings, shown
    from .settings_table import output_width

    say_unused(ctx, "config")
    errors_as_json(as_json, "error")  # a bad setting, a window not kept: the `{"error": ...}` object too
    top = ctx.obj or {}
    if forget_window is not None or forget_server is not None:
        return forget_learned(home_dir(), forget_window, forget_server, top.get("model"), as_json)
    flags = {k: top.get(k) for k in ("model", "base_url", "context_window", "prices", "max_requests_per_turn")}
    work = working_dir(top.get("cwd"))
    # The window (the model's own, or one a server showed) and prices a run would have, as /config
    loaded = load_settings(work, warn=False, **flags)
    refuse_empty_model(loaded)
    view = for_settings(loaded, home_dir())
    sys.stdout.write(shown(view, home_dir(), as_json, output_width(), work))  # its warnings are in the output


@app.command("sessions", cls=OneLineCommand, short_help="List this directory's sessions, or remove some.")
def sessions_command(
    ctx: typer.Context,
    all_: Annotated[bool, typer.Option("--all", help="List every session (without it: the newest 20), the failed starts a newer one with the same prompt counts too.")] = False,
    delete: Annotated[list[str] | None, typer.Option("--delete", metavar="ID", help="Remove this session (its id, or a start of one id alone) and everything it owns: archives, side files, checkpoint backups, the record of sent prompts, its lines in the prompt history (repeatable); or what is left of a session whose file is gone (the listing's leftovers). A session in use by another process is not removed.")] = None,
    older: Annotated[int | None, typer.Option("--delete-older-than", metavar="DAYS", parser=count(0, "days"), help="Remove every session of this directory (those --all adds too) last written (its file or the files it keeps) more than DAYS days ago, as --delete does, and what is left of sessions whose file is gone.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="With --delete or --delete-older-than: say what would be removed, and remove nothing.")] = False,
) -> None:
    """List this directory's sessions, newest first (for --resume ID), or remove some (--delete, --delete-older-than)."""
    from .cli_resume import found_sessions, in_use_marked, sessions_elsewhere
    from .cli_unused import say_unused
    from .config import home_dir, home_problem
    from .ui.sessions_list import MAX_LISTED, format_row, session_rows, unlisted_line

    say_unused(ctx, "sessions")
    if (problem := home_problem(make=False)) is not None:  # listing creates nothing
        raise fail(problem, 2)
    work = working_dir((ctx.obj or {}).get("cwd"))
    if dry_run and not delete and older is None:
        raise fail("--dry-run goes with --delete or --delete-older-than: it says what they would remove", 2)
    root = found_sessions(work)  # and says once whose they are, when the project was moved or renamed
    if delete or older is not None:
        from .session import removal
        if delete and older is not None:
            raise fail("--delete and --delete-older-than both choose what to remove; give one of them", 2)
        if all_ and delete:
            raise fail("--all is for the listing: --delete removes the session it names, also one only --all "
                       "lists (another directory's: compact-agent --cwd DIR sessions --delete ID)", 2)
        if all_:
            raise fail("--all is for the listing: --delete-older-than already covers every session of this "
                       "directory (another directory's: compact-agent --cwd DIR sessions ...)", 2)
        folded = {r.id: r.folded for r in session_rows(root) if r.folded} if delete else {}
        raise typer.Exit(removal.run(root, home_dir(), delete or [], older,
                                     say=lambda line: sys.stdout.write(visible(line) + "\n"),
                                     warn=lambda line: sys.stderr.write(visible(f"compact-agent: {line}") + "\n"),
                                     dry=dry_run, folded=folded))
    from .session.leftovers import leftovers, lines
    from .session.sessions_folder import folder_line
    rows = in_use_marked(root, session_rows(root, limit=sys.maxsize if all_ else MAX_LISTED, fold=not all_))
    if not rows:  # and where a project of this name keeps its own, when this folder was copied or moved
        sys.stdout.write(visible(f"no sessions in {work}{sessions_elsewhere(work, root)}") + "\n")
    for r in rows:
        sys.stdout.write(visible(format_row(None, r)) + "\n")
    if not all_ and (more := unlisted_line(root, rows, "-r ID")) is not None:
        sys.stdout.write(visible(more) + "\n")
    for line in [*lines(leftovers(root)), folder_line(root)]:  # what is left of sessions whose file is gone; where
        sys.stdout.write(visible(line) + "\n")


@app.command("analyze", cls=AnalyzeCommand,
             short_help="Replay transcripts through our pipeline and its rivals: size, cost, recall.")
def analyze_command(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(metavar="PATH...", readable=False, help="Transcript files or directories (searched recursively): Claude Code, Codex, mini-swe-agent, SWE-agent, OpenAI or Anthropic chat JSON, Cline or Roo Code tasks, Cline SDK sessions, Gemini CLI chats, compact-agent sessions.")],
    window: Annotated[int, typer.Option("--window", metavar="TOKENS", parser=tokens(2048), show_default=False, help="Context window to replay at (tokens: 64000 or 64k; default 64,000, at least 2,048).")] = 64_000,
    strategy: Annotated[list[str] | None, typer.Option("--strategy", "-s", metavar="NAME", help="(repeatable; default all).")] = None,
    pricing: Annotated[str, typer.Option("--pricing", metavar="NAME", help="deepseek | anthropic: the model whose prices, prompt cache and max output the replay assumes (the strategies' triggers are built on that max output, so it moves them even at the same --prices).")] = "deepseek",
    prices: Annotated[str | None, typer.Option("--prices", metavar="IN,CACHED,OUT", help="Price the replay at your model's prices instead of --pricing's, USD per million tokens: input, cached input, output[, cache write], e.g. 5,0.5,25,6.25 (as the chat's --prices; a cache write needs --pricing anthropic).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", metavar="FILE", help="Write a chart of context tokens per request (.svg, or .png with matplotlib).")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", metavar="NAME", help="Make summary calls with this model instead of the deterministic stand-in.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", metavar="URL", help="OpenAI-compatible endpoint of the --model model (vLLM, Ollama, llama.cpp); else as the chat's: compact-agent --base-url, then base_url in the config.")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", metavar="KEY", help="API key for the --model model (else read from OPENAI_API_KEY; without --base-url, from DEEPSEEK_API_KEY for a deepseek-* model and ANTHROPIC_API_KEY for a claude-* one).")] = None,
    totals: Annotated[bool, typer.Option("--totals", "--quiet", "-q", help="Print only the totals over all transcripts (with --json: only the totals entries).")] = False,
    sets: Annotated[list[str] | None, typer.Option("--set", metavar="NAME=VALUE", help="Replay ours (and seed000's limits) with this setting of the pipeline instead of its default, e.g. --set stall_wait_usd=0 (repeatable; values as in a settings file). Without it: the defaults, whatever the environment holds.")] = None,
) -> None:
    """Replay transcripts request by request through our pipeline and its rivals; compare size, cost, retention."""
    from .cli_unused import say_unused
    from .replay.given_settings import SetError, parse
    from .replay.plot import plot_problem
    from .replay.report import run_cli

    say_unused(ctx, "analyze")
    errors_as_json(as_json, "error")  # every failure is one line, and with --json the `{"error": ...}` object too

    def bad(message: str) -> typer.Exit:
        return fail(message, 2)

    if model is not None and not model.strip():
        raise bad("--model needs a model name (e.g. --model deepseek-chat), not an empty one")
    if not model and (base_url is not None or api_key is not None):
        raise bad(f"{'--base-url' if base_url is not None else '--api-key'} is for the model that writes the "
                  "summaries: add --model NAME (without it the deterministic stand-in writes them)")
    if (problem := url_problem(base_url)) is not None:
        raise bad(f"--base-url: {problem}")
    try:  # before any replay: a typo is said at once, not after minutes of figures made without it
        given = parse(sets or [])
    except SetError as e:
        raise bad(str(e)) from None
    limits = None  # the summary model's timeout and retries, as the settings give them (with --model)
    if model:  # endpoint and key found as the chat finds its own: this command's flag, the top-level one, ...
        top = ctx.obj or {}
        work = working_dir(top.get("cwd"))
        loaded = load_settings(work, base_url=top.get("base_url"))
        base_url = endpoint(base_url, loaded)  # ..., the config
        limits = {"max_retries": loaded.settings.max_retries, "timeout_s": loaded.settings.request_timeout_s}
        api_key = protect_key(api_key or top.get("api_key"))  # ..., the provider's variable
    if plot is not None and (problem := plot_problem(plot)) is not None:  # before minutes of replay, not after
        raise bad(f"--plot {plot}: {problem}")
    raise typer.Exit(run_cli(paths, window=window, strategies=strategy, pricing=pricing, as_json=as_json, plot=plot,
                             model=model, totals_only=totals, base_url=base_url, api_key=api_key, limits=limits,
                             settings=given, prices=prices))


def main() -> None:
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    fit_streams(sys.argv[1:])  # a locale that is not UTF-8: every character written and typed (terminal_text.py)
    os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")  # our terminal, our output
    from .pipes import guarded_output

    with guarded_output():  # `| head`: a reader that leaves early ends the run quietly (pipes.py)
        route_library_warnings()  # its handler writes to the guarded stderr
        try:  # the command line library's command is built once (7 ms a time), to read the line, then to run
            args = split_query(sys.argv[1:], command := typer.main.get_command(app))
        except OneLineUsage as e:  # outside the command line library, which says its own errors
            e.show()
            raise SystemExit(e.exit_code) from None
        try:
            command(args=args, prog_name="compact-agent")
        except KeyboardInterrupt:  # one during a command OneLineGroup ends; not one after it,
            raise SystemExit(say_interrupted()) from None  # as while a usage error is written


if __name__ == "__main__":
    main()
