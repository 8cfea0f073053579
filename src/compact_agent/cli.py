"""Command line: the REPL (default), print mode (`-p`), and `analyze`.

Every failure the user can cause or fix (no key, unreachable endpoint, bad flag, locked or missing
session) ends in one clear line on stderr and a nonzero exit, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .models import ConfigError

app = typer.Typer(add_completion=False, no_args_is_help=False, rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]})


def fail(message: str, code: int = 1) -> typer.Exit:
    sys.stderr.write(f"compact-agent: {message}\n")
    return typer.Exit(code)


def describe_error(e: BaseException) -> str:
    """One line for any error a turn can end with; never quoting the API key (a provider may echo it)."""
    from . import secrets

    return secrets.redact(_describe_error(e))


def _describe_error(e: BaseException) -> str:
    from pydantic_ai.exceptions import (
        ModelAPIError,
        ModelAuthenticationError,
        ModelConnectionError,
        ModelContextWindowExceededError,
        ModelHTTPError,
        UnexpectedModelBehavior,
        UsageLimitExceeded,
    )

    from .agent.retry import is_timeout
    from .session.store import SessionError

    saved = "; the session is saved, send the message again to retry"
    if isinstance(e, ModelAuthenticationError):
        return "the provider rejected the API key (check the key for this endpoint)"
    if isinstance(e, ModelConnectionError) and is_timeout(e):
        return ("the model endpoint did not answer in time, after retries (raise COMPACT_AGENT_REQUEST_TIMEOUT_S "
                f"for a slow local model){saved}")
    if isinstance(e, ModelConnectionError):
        return f"cannot reach the model endpoint ({_first_line(e)}); check --base-url and the network{saved}"
    if isinstance(e, ModelContextWindowExceededError):
        return "the conversation is still too long for the model after compaction; try /compact or a larger window"
    if isinstance(e, ModelHTTPError):
        detail = _provider_message(e)
        if e.status_code == 429:
            return f"the provider is rate-limiting requests (HTTP 429) and still was after retries: {detail}{saved}"
        if e.status_code >= 500:
            return f"the provider failed (HTTP {e.status_code}) on every retry: {detail}{saved}"
        return f"the provider answered HTTP {e.status_code}: {detail}"
    if isinstance(e, ModelAPIError):
        return f"model request failed, after retries: {_first_line(e)}{saved}"
    if isinstance(e, UnexpectedModelBehavior):
        return f"the model replied with something unusable: {_first_line(e)}"
    if isinstance(e, UsageLimitExceeded):
        return _first_line(e)
    if isinstance(e, (ConfigError, SessionError, FileNotFoundError, PermissionError)):
        return _first_line(e)
    if isinstance(e, OSError):
        return f"{type(e).__name__}: {_first_line(e)}"
    return f"{type(e).__name__}: {_first_line(e)}"


def _provider_message(e: BaseException) -> str:
    """The provider's own error message (OpenAI/Anthropic bodies), not the exception's repr."""
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        if isinstance(inner.get("message"), str) and inner["message"].strip():
            return " ".join(inner["message"].split())[:300]
    return _first_line(e)


def _first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return (lines[0] if lines else type(e).__name__)[:400]


@app.callback(invoke_without_command=True)
def main_command(
    ctx: typer.Context,
    prompt: Annotated[str | None, typer.Option("-p", "--print", help="Run one turn non-interactively and print the answer.")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Model name (default deepseek-chat).")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp).")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="API key (else from the environment).")] = None,
    context_window: Annotated[int | None, typer.Option("--context-window", min=1024, help="Override the model's context window (tokens).")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve writes, edits and commands without asking.")] = False,
    continue_: Annotated[bool, typer.Option("--continue", "-c", help="Resume the newest session of this directory.")] = False,
    resume: Annotated[str | None, typer.Option("--resume", "-r", help="Resume the session with this id.")] = None,
    output_format: Annotated[str, typer.Option("--output-format", help="text | json | stream-json (print mode).")] = "text",
    cwd: Annotated[Path | None, typer.Option("--cwd", help="Working directory (default: current).")] = None,
) -> None:
    """compact-agent: a coding agent whose context never runs out."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = {"model": model, "base_url": base_url, "context_window": context_window, "cwd": cwd}
        return
    if output_format not in ("text", "json", "stream-json"):
        raise fail(f"--output-format must be text, json or stream-json, not {output_format!r}", 2)
    from .agent.runner import SessionOptions

    work = (cwd or Path.cwd()).resolve()
    if not work.is_dir():
        raise fail(f"working directory {work} does not exist", 2)
    api_key = _protect_key(api_key)
    settings = load_settings(work, model=model, base_url=base_url, context_window=context_window).settings
    opts = SessionOptions(
        cwd=work, model=model or settings.model, base_url=base_url or settings.base_url, api_key=api_key,
        context_window=context_window, permission_mode="yes" if yes else ("deny" if prompt is not None else "ask"),
        session_id=resume, continue_last=continue_, settings=settings,
    )
    if prompt is not None:
        if not prompt.strip():
            raise fail("-p needs a non-empty prompt", 2)
        code = asyncio.run(_print_mode(opts, prompt, output_format))
        raise typer.Exit(code)
    from .ui.repl import run_repl

    try:
        asyncio.run(run_repl(opts))
    except (ConfigError, FileNotFoundError) as e:
        raise fail(describe_error(e)) from None
    except Exception as e:  # noqa: BLE001 - the REPL reports, never dumps
        from .session.store import SessionError

        if isinstance(e, SessionError):
            raise fail(describe_error(e)) from None
        raise


def _protect_key(api_key: str | None) -> str | None:
    """Register every key we know of and hide it from the commands the agent runs (secrets.py);
    `--api-key` is also in the process list for every user until then: say so once."""
    from . import secrets

    if api_key and len(api_key) >= secrets.MIN_LEN:  # shorter: a local server's placeholder, not a key
        sys.stderr.write("compact-agent: warning: --api-key is visible to other users in the process list while "
                         "the agent starts; export DEEPSEEK_API_KEY / OPENAI_API_KEY / ANTHROPIC_API_KEY "
                         "instead (e.g. from a key file: OPENAI_API_KEY=$(cat ~/.key))\n")
    secrets.register(api_key)
    secrets.register_environment()
    secrets.hide_from_children()
    return api_key


def load_settings(work: Path, **flags: object) -> Any:
    """Defaults < user file < project file < environment < flags (see settings_file.py);
    a bad file or value is one line and exit code 2."""
    from .settings_file import SettingsError, load

    try:
        loaded = load(work, flags)
    except SettingsError as e:
        raise fail(str(e), 2) from None
    except Exception as e:  # noqa: BLE001 - e.g. a malformed environment value
        raise fail(f"bad setting: {_first_line(e)}", 2) from None
    for w in loaded.warnings:
        sys.stderr.write(f"compact-agent: warning: {w}\n")
    return loaded


@app.command("config")
def config_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Print the effective settings and where each came from (default, user file, project file, env, flag)."""
    from .settings_file import render

    flags = dict(ctx.obj or {})
    work = (flags.pop("cwd", None) or Path.cwd()).resolve()
    sys.stdout.write(render(load_settings(work, **flags), as_json))


@app.command("analyze")
def analyze_command(
    paths: Annotated[list[Path], typer.Argument(help="Transcript files or directories (searched recursively): Claude Code, Codex, mini-swe-agent, SWE-agent, OpenAI chat, compact-agent sessions.")],
    window: Annotated[int, typer.Option("--window", min=2048, help="Context window to replay at (tokens).")] = 64_000,
    strategy: Annotated[list[str] | None, typer.Option("--strategy", "-s", help="ours, none, seed000, codex, masking, opencode, gemini (repeatable; default all).")] = None,
    pricing: Annotated[str, typer.Option("--pricing", help="deepseek | anthropic (cache hit/miss/write prices).")] = "deepseek",
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="Write a chart of context tokens per request (.svg, or .png with matplotlib).")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Make summary calls with this model instead of the deterministic stand-in.")] = None,
) -> None:
    """Replay transcripts request by request through our pipeline and its rivals; compare size, cost, retention."""
    from .replay.report import run_cli

    raise typer.Exit(run_cli(paths, window=window, strategies=strategy, pricing=pricing, as_json=as_json,
                             plot=plot, model=model))


async def _print_mode(opts: object, prompt: str, output_format: str) -> int:
    from . import secrets
    from .agent.runner import AgentSession
    from .agent.stream_events import compaction_end, problem_line
    from .context.events import Event

    stream = output_format == "stream-json"

    def emit(obj: dict) -> None:  # tool output, text, events: nothing printed may carry the key
        sys.stdout.write(secrets.redact(json.dumps(obj, ensure_ascii=False)) + "\n")
        sys.stdout.flush()

    def on_event(ev: Event) -> None:
        if ev.layer == "compact" and ev.action == "failed":
            sys.stderr.write(f"compact-agent: auto-compaction failed: {ev.detail.get('error', '')}\n")
        if (problem := problem_line(ev)) is not None:
            sys.stderr.write(f"compact-agent: {problem}\n")
        if stream:
            emit({"type": "event", **ev.to_json()})
            if (end := compaction_end(ev)) is not None:
                emit(end)

    def on_change(tool: str, info: dict) -> None:
        if stream and tool == "todo_write":
            emit({"type": "todos", "todos": info.get("todos", [])})

    def on_compact_start(trigger: str, tokens: int) -> None:
        if stream:
            emit({"type": "compaction_start", "trigger": trigger, "tokens_before": tokens})

    try:
        session = AgentSession(opts, on_event=on_event, on_compact_start=on_compact_start,  # type: ignore[arg-type]
                               on_change=on_change)
    except Exception as e:  # noqa: BLE001
        raise fail(describe_error(e)) from None
    for w in session.warnings:
        sys.stderr.write(f"compact-agent: warning: {w}\n")
    try:
        on_text = (lambda t: emit({"type": "text", "text": t})) if stream else None
        turn = await session.run_turn(prompt, on_text=on_text, on_tool=emit if stream else None)
    except Exception as e:  # noqa: BLE001
        sys.stderr.write(f"compact-agent: {describe_error(e)}\n")
        return 1
    finally:
        await session.aclose()
    usage = {
        "input_tokens": turn.usage.input_tokens, "output_tokens": turn.usage.output_tokens,
        "cache_read_tokens": turn.usage.cache_read_tokens, "requests": turn.usage.requests,
        "summary_requests": len(session.summary_usage),
        "memory_requests": len(session.memory.usage) if session.memory is not None else 0,
    }
    compactions = [{"trigger": c.trigger, "strategy": c.strategy, "tokens_before": c.tokens_before,
                    "tokens_after": c.tokens_after, "archive": str(c.archive or "")} for c in turn.compactions]
    if output_format == "text":
        sys.stdout.write(secrets.redact(turn.output.rstrip("\n")) + "\n")
    elif output_format == "json":
        emit({"result": turn.output, "session_id": session.session_id, "usage": usage, "compactions": compactions})
    else:
        emit({"type": "result", "result": turn.output, "session_id": session.session_id, "usage": usage,
              "compactions": compactions})
    return 0


class _OneLineOnce(logging.Filter):
    """Each distinct library warning once, flattened to one line."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        from . import secrets

        text = secrets.redact(" ".join(record.getMessage().split()))
        if text in self.seen:
            return False
        self.seen.add(text)
        record.msg, record.args = text, None
        return True


def route_library_warnings() -> None:
    """Warnings our modules log (a corrupt collapse log, a spill that could not be written) reach
    the user as `compact-agent: warning: ...` lines, once each, not as Python's bare last-resort
    output (which repeats and may span lines)."""
    logger = logging.getLogger("compact_agent")
    if any(getattr(h, "_compact_agent", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("compact-agent: warning: %(message)s"))
    handler.addFilter(_OneLineOnce())
    handler._compact_agent = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    logger.propagate = False


def main() -> None:
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")  # our terminal, our output
    route_library_warnings()
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("compact-agent: interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    main()
