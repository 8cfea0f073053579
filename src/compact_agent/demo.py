"""`make demo`: an offline session of the real agent that fills its window and compacts.

Everything is real except the model: the session, tools, layers, compaction, archive and session
file are the product's own code, working on this project's source files (read-only). The model is
a SCRIPTED STAND-IN (pydantic-ai's FunctionModel) that surveys `context/` and `session/` one file at
a time, so the demo needs no key and no network. Its window is set small (20K tokens) so the
pipeline has to work: tool results pile up, the layers trim the view, auto-compaction rewrites the
history, and the survey still finishes with the task intact. Afterwards the analyzer replays the
transcript.

The stand-in is priced as deepseek-chat, the price list the analyzer replays at. Without prices a
model compacts at the threshold only, and the layers alone kept this survey under it: the demo
said `compactions in this session: 0` under a promise that it compacts. Priced, a compaction comes
where it pays, as it would for a real model.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from rich.console import Console

from .agent.run.options import SessionOptions
from .agent.run.runner import AgentSession
from .config import Settings
from .context.compaction.notes import NOTES_MARK
from .context.plumbing import tokens
from .context.plumbing.events import LAYER_NAMES, Event
from .models import PRICING
from .price_setting import ModelPrices
from .ui import render

TASK = ("Survey two packages: read every module directly in src/compact_agent/context/ and "
        "src/compact_agent/session/ one at a time and list each module with its first docstring line. "
        "Do not modify any file.")
DONE = re.compile(r"Surveyed so far: (.*)")
SEP = " ; "


def _texts(messages: list[ModelMessage]) -> str:
    out = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, (UserPromptPart, TextPart)) and isinstance(p.content, str):
                out.append(p.content)
    return "\n".join(out)


class ScriptedSurveyor:
    """The stand-in model. It keeps its progress in what it says, like a real model would."""

    def __init__(self, files: list[str]) -> None:
        self.files = files

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        response = self._reply(messages)
        # Report usage as a provider would (characters / 4 of what was sent, plus the system prompt
        # and tool schemas); FunctionModel's own word count would mislead the pipeline's calibration.
        sent = tokens.estimate(messages) + tokens.request_overhead(info.instructions, info.function_tools)
        response.usage = RequestUsage(input_tokens=sent, output_tokens=tokens.estimate([response]))
        return response

    def _reply(self, messages: list[ModelMessage]) -> ModelResponse:
        last = messages[-1]
        prompt = next((p.content for p in reversed(last.parts) if isinstance(p, UserPromptPart)), "")
        if isinstance(prompt, str) and "Respond with TEXT ONLY" in prompt:
            return ModelResponse(parts=[TextPart(self._summary(messages[:-1]))])
        if isinstance(prompt, str) and NOTES_MARK in prompt:
            return ModelResponse(parts=[TextPart(self._notes(messages[:-1]))])
        done = self._done(messages)
        remaining = [f for f in self.files if f not in done]
        if not remaining:
            lines = "\n".join(f"- {f}: {done[f]}" for f in self.files)
            return ModelResponse(parts=[TextPart(f"Survey complete ({len(self.files)} modules):\n{lines}")])
        nxt = remaining[0]
        note = "Surveyed so far: " + SEP.join(f"{Path(f).name}={_words(done[f], 40)}" for f in done) if done else ""
        return ModelResponse(parts=[TextPart(note or "Starting the survey."),
                                    ToolCallPart("read_file", {"path": nxt, "limit": 400})])

    def _done(self, messages: list[ModelMessage]) -> dict[str, str]:
        done: dict[str, str] = {}
        for match in DONE.finditer(_texts(messages)):
            for item in match.group(1).split(SEP):
                name, _, doc = item.partition("=")
                for f in self.files:
                    if Path(f).name == name.strip():
                        done[f] = doc
        calls = {p.tool_call_id: p.args.get("path") for m in messages if isinstance(m, ModelResponse)
                 for p in m.parts if isinstance(p, ToolCallPart) and isinstance(p.args, dict)}
        for m in messages:
            if isinstance(m, ModelRequest):
                for p in m.parts:
                    if not isinstance(p, ToolReturnPart):
                        continue
                    path = calls.get(p.tool_call_id)
                    doc = _first_doc_line(str(p.content))
                    if isinstance(path, str) and path in self.files and doc is not None:
                        done[path] = _words(doc, 60).replace(SEP.strip(), ",")
        return done

    def _notes(self, messages: list[ModelMessage]) -> str:
        """Session notes, as a model keeping them in the background would write them."""
        done = self._done(messages)
        listed = SEP.join(f"{Path(f).name}={_words(d, 40)}" for f, d in done.items())
        nxt = next((f for f in self.files if f not in done), "none")
        return ("<notes>\n"
                f"# Task and intent\n{TASK}\n\n"
                f"# User instructions and constraints (verbatim)\n- {TASK}\n\n"
                f"# Files read and changed (current state)\n- read {len(done)} of {len(self.files)}; none changed\n\n"
                "# Decisions\n- one module at a time, in order\n\n"
                "# Errors and fixes\n_(nothing yet)_\n\n"
                f"# Current state\nSurveyed so far: {listed}\n\n"
                f"# Next steps\n- read {nxt}\n</notes>")

    def _summary(self, messages: list[ModelMessage]) -> str:
        done = self._done(messages)
        listed = SEP.join(f"{Path(f).name}={d[:40]}" for f, d in done.items())
        return ("<analysis>Walked through the conversation.</analysis>\n<summary>\n"
                f"1. Primary Request and Intent: {TASK}\n"
                "8. Current Work: reading the modules in order.\n"
                f"9. Next Step: continue with the next unread module. Surveyed so far: {listed}\n</summary>")


def _first_doc_line(content: str) -> str | None:
    """The first line of the module docstring in read_file's numbered text, "(no docstring)" for a
    file that opens without one, or None when `content` no longer shows the file's first line.

    A result the layers have since cleared ("[Old tool result content cleared]") says nothing about
    the file: the survey keeps what its own notes said when it read it, as a model would. Taken as
    "no docstring", it put pipeline.py, state.py and others in the answer without theirs.
    """
    numbered = dict(re.findall(r"^ *(\d+)\t(.*)$", content, re.MULTILINE))
    if "1" not in numbered:
        return None
    first = numbered["1"].strip()
    quote = first[:3]
    if quote not in ('"""', "'''"):
        return "(no docstring)"
    text = first[3:].split(quote)[0].strip() or numbered.get("2", "").split(quote)[0].strip()
    return text or "(no docstring)"


def _words(text: str, n: int) -> str:
    """`text` cut to at most `n` characters at a word boundary, marked with an ellipsis."""
    if len(text) <= n:
        return text
    cut = text[: n - 1].rsplit(" ", 1)[0] if " " in text[: n - 1] else text[: n - 1]
    return cut.rstrip(" ,;:") + "…"


async def run_demo(repo: Path, home: Path, console: Console) -> Path:
    # The smallest modules first: the first requests then carry whole reads, which the analysis of
    # the session fits its usage on (a read past the tool-result budget is sent as its preview).
    found = [p for pkg in ("context", "session") for p in (repo / "src/compact_agent" / pkg).glob("*.py")
             if p.name != "__init__.py"]
    files = [str(p.relative_to(repo)) for p in sorted(found, key=lambda p: (p.stat().st_size, p.name))]
    model = FunctionModel(ScriptedSurveyor(files), model_name="scripted-stand-in")

    def on_event(ev: Event) -> None:
        if ev.layer == "compact":
            console.print(f"  [bold magenta]{render.compact_line(ev)}[/]")
        elif ev.layer == "memory" and ev.action == "update":
            console.print("  [green]session notes updated in the background[/]")
        elif ev.tokens_freed and ev.layer in LAYER_NAMES:
            console.print(f"  [cyan]{render.layer_line(ev)}[/]")

    priced = PRICING["deepseek"]  # the analyzer's default prices, the ones it replays the demo at
    opts = SessionOptions(cwd=repo, model="scripted-stand-in", context_window=20_000, permission_mode="deny",
                          home=home, model_override=model, settings=Settings(prices=ModelPrices.of(priced)))
    session = AgentSession(opts, on_event=on_event,
                           on_compact_start=lambda t, n: console.print(f"  [magenta]compacting ({t}) {n:,} tokens…[/]"))
    console.rule("[bold]compact-agent demo[/] — a SCRIPTED STAND-IN model, all else real")  # fits 80 columns
    # The threshold follows the room kept for an answer (Schedule.output_limits): it rises once the
    # answers prove short, so a later compaction line names a higher one.
    console.print(f"window 20,000 tokens · auto-compact threshold {session.cm.limits.threshold:,} at the start, "
                  f"raised as answers prove short · priced as {priced.name} · session {session.session_id}")
    console.print(f"[bold]user:[/] {TASK}")
    try:
        turn = await session.run_turn(TASK)
    finally:
        session.close()
    console.print(f"[bold]assistant:[/] {turn.output}")
    used = session.context_tokens()
    console.print(f"context now {used:,} tokens {render.bar(used, session.cm.limits.threshold, session.cm.limits.window)}")
    savings = ", ".join(f"{render.LAYER_WORDS.get(layer, layer)} {n:,}" for layer, n in session.cm.layer_savings.items()
                        if n) or "none"
    console.print(f"compactions in this session: {len(turn.compactions)} · tokens the layers freed: {savings}")
    console.print("session file (removed when the demo ends; COMPACT_AGENT_DEMO_KEEP=1 keeps it):")
    console.print(f"  {session.store.path}", soft_wrap=True)  # a path: the terminal may wrap it, we do not
    return session.store.path


def main() -> None:
    """`make demo`, also `make demo | head`: a reader that leaves early ends it quietly (pipes.py),
    as it ends the command line's own runs. Rich answered the closed pipe with SystemExit(1) from
    inside the turn, and the thread the turn had started kept the program from ending: it hung."""
    from .pipes import guarded_output

    os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")
    repo = Path(__file__).resolve().parents[2]
    if not (repo / "src/compact_agent/context").is_dir():
        sys.stderr.write("compact-agent demo: run it from a source checkout (make demo)\n")
        raise SystemExit(1)
    with guarded_output():
        _demo(repo)


def _demo(repo: Path) -> None:
    console = render.make_console(markup=True)  # the demo styles its own text with markup
    home = Path(tempfile.mkdtemp(prefix="compact-agent-demo-"))
    try:
        session_file = asyncio.run(run_demo(repo, home, console))
        from .replay.report import analyze_paths_for_demo

        console.print("[dim]The analyzer replays the session's transcript with its own stand-in summaries and "
                      "notes, so its compaction count for 'ours' can differ from the live run's.[/]")
        analyze_paths_for_demo([session_file], console)
    finally:
        if os.environ.get("COMPACT_AGENT_DEMO_KEEP"):
            console.print(f"session kept in {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)  # COMPACT_AGENT_DEMO_KEEP=1 keeps it to look at


if __name__ == "__main__":
    main()
