"""Our pipeline as a replay strategy: a real `ContextManager`, driven the way the agent drives it.

Nothing here re-implements a layer or a threshold. Each request point calls the very methods the
pydantic-ai hooks call: `persist` and `prepare_view` (what `prepare_model_request` runs), then
`after_model_request` with the simulated usage of what was sent, so the calibration learns from
"provider-reported" sizes exactly as it does live. The default layers get a spill directory and a
collapse log in a scratch directory; the session store is an in-memory stand-in with the same
append/archive/rewrite contract; the summarizer is the replay's (stand-in or `--model`).

What the agent would re-read from disk after a compaction (the most recently read files) comes from
the transcript instead: the last content each file was read with, written to the scratch
directory, so the restore step runs unchanged. The settings are the product's defaults
(`default_settings`), never the environment's nor a config file's: the analyzer is how a change to
the pipeline is judged, and a `COMPACT_AGENT_*` variable left set in the shell moved its figures
without a word (a bad one made every file "unreplayable"). Session memory, off by default as it is
live, runs as it does live when the settings given turn it on (`memory_enabled`): its background notes request is
started by the response hook and, for a
deterministic replay, awaited before the next request (live it overlaps the next model call); the
notes are written by the replay's stand-in (or `--model`) and the request is priced like any other.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pydantic_ai.direct import model_request
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, RunUsage

from ..agent.run.summary_wording import CODING  # the live agent's summary request
from ..config import GivenOnly, Limits, Settings
from ..context import Compactor, ContextManager, Event, Restorer, SessionMemory, default_layers
from ..context.compaction.cuts import join
from ..context.layers.previews import OWN_TOOLS
from ..context.plumbing.markers import WHOLE
from ..context.wiring import Internals, SummaryInputs
from ..models import PRICING, prices_of
from .retention import is_typed
from .simulate import SideCall, Sim, Step
from .standin import standin_notes

READ_TOOLS = frozenset({"read", "read_file", "view"})
RESTORE_META = {"compact_agent": {"synthetic": "restore"}}
WHOLE_META = {"compact_agent": {"synthetic": "restore", WHOLE: True}}  # a file restored uncut


class MemoryStore:
    """The session store's contract (append, archive, rewrite, side files) without the fsyncs."""

    def __init__(self, root: Path) -> None:
        self.dir = root
        self.messages: list[ModelMessage] = []
        self.boundaries: list[dict[str, Any]] = []
        self.archives = 0

    def side_dir(self, name: str) -> Path:
        path = self.dir / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self.messages.extend(messages)

    def archive(self) -> Path:
        self.archives += 1
        return self.dir / "compact-history" / f"replay-{self.archives}.jsonl"

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        self.boundaries.append(boundary)
        self.messages = list(messages)


def _read_path(part: ToolCallPart) -> str | None:
    if part.tool_name.lower() not in READ_TOOLS:
        return None
    args: Any = part.args
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    if not isinstance(args, dict):
        return None
    path = args.get("file_path") or args.get("path")
    return path if isinstance(path, str) and path else None


class TranscriptFiles:
    """Files the transcript read, for the restore step: the last content read, on a scratch disk."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.latest: dict[str, str] = {}  # original path -> last content read, newest last
        self.pending: dict[str, str] = {}  # tool call id -> path, until its result arrives
        self.scratch: dict[Path, str] = {}
        self.restores = 0

    def observe(self, messages: Sequence[ModelMessage]) -> None:
        for m in messages:
            for p in m.parts:
                if isinstance(p, ToolCallPart) and (path := _read_path(p)):
                    self.pending[p.tool_call_id] = path
                elif isinstance(p, ToolReturnPart) and p.tool_call_id in self.pending:
                    path = self.pending.pop(p.tool_call_id)
                    if (p.metadata or {}).get("compact_agent", {}).get("synthetic") == "restore":
                        continue
                    self.latest.pop(path, None)
                    self.latest[path] = p.content if isinstance(p.content, str) else str(p.content)

    def _scratch_path(self, original: str) -> Path:
        name = hashlib.sha256(original.encode()).hexdigest()[:16] + ".txt"
        return self.root / name

    def recent(self) -> list[Path]:
        out: list[Path] = []
        for original in reversed(self.latest):
            path = self._scratch_path(original)
            content = self.latest[original]
            if self.scratch.get(path) is None or not path.exists() or path.stat().st_size != len(content.encode()):
                path.write_text(content, encoding="utf-8")
            self.scratch[path] = original
            out.append(path)
        return out

    def resolve(self, shown: str) -> Path:
        return self._scratch_path(shown) if shown in self.latest else Path(shown)

    def reread(self, paths: list[Path], max_tokens: int) -> list[ModelMessage]:
        """One synthetic read call/return exchange, as `mention_messages` builds it live."""
        self.restores += 1
        calls: list[ToolCallPart] = []
        returns: list[ToolReturnPart] = []
        for n, path in enumerate(paths):
            original = self.scratch.get(path, str(path))
            content = self.latest.get(original, "")
            cap = max_tokens * 4
            meta = RESTORE_META if len(content) > cap else WHOLE_META
            if len(content) > cap:
                content = content[:cap] + f"[truncated to ~{max_tokens} tokens]"
            call_id = f"restore_{self.restores}_{n}_{hashlib.sha256(original.encode()).hexdigest()[:8]}"
            calls.append(ToolCallPart("read_file", {"path": original}, tool_call_id=call_id))
            returns.append(ToolReturnPart("read_file", content, tool_call_id=call_id, metadata=meta))
        if not calls:
            return []
        return [ModelResponse(parts=calls, metadata=RESTORE_META), ModelRequest(parts=returns, metadata=RESTORE_META)]



def default_settings() -> Settings:
    """The product's default settings, whatever the environment holds (see the module docstring)."""
    return GivenOnly()


def ignored_variables(environ: Mapping[str, str]) -> list[str]:
    """The `COMPACT_AGENT_*` variables set in `environ` that name a setting: the chat reads them,
    the replay of ours does not (said once, so nobody believes their figures were made with them)."""
    return sorted(k for k in environ if k.startswith("COMPACT_AGENT_")
                  and k.removeprefix("COMPACT_AGENT_").lower() in Settings.model_fields)


#: The folders of the replays under way in this process (`Ours.root`): a worker the analyzer ends
#: on Ctrl-C removes them as it goes (batch.py), as `close` would have.
LIVE_ROOTS: set[Path] = set()


class Ours:
    """The agent's pipeline (default layers, thresholds from `Limits.for_window`) as a strategy."""

    name = "ours"

    def __init__(self, sim: Sim, settings: Settings | None = None, notes_model: Model | None = None) -> None:
        self.sim = sim
        self.settings = settings or default_settings()
        self.root = Path(tempfile.mkdtemp(prefix="compact-agent-replay-"))
        LIVE_ROOTS.add(self.root)
        self.store = MemoryStore(self.root)
        self.files = TranscriptFiles(self.root / "read-files")
        limits = Limits.for_window(sim.window, sim.max_output, self.settings)
        restorer = Restorer(recent_files=self.files.recent, reread=self.files.reread, resolve=self.files.resolve)
        self.calls: list[SideCall] = []
        self.failed = 0
        # keep_system_prompts=False: a transcript's recorded opening system prompt is replayed in the
        # overhead, sent with every request (simulate.fixed_prompt), as the live agent sends its own
        # as instructions, never in the history: none is left in the history to carry.
        self.cm = ContextManager.wired(
            Internals(limits=limits, summarizer=self._summarizer,
                      compactor=Compactor(limits, restorer, typed=self._typed(sim), wording=CODING),
                      # The live agent's requests list its tools, and a spilled result's preview names
                      # those it can read the rest with (lifecycle.agent_tools): the replay's list none.
                      layers=default_layers(self.settings.compaction(), self.store, preview_tools=OWN_TOOLS),
                      event_sink=self._on_event,
                      provider=sim.provider, cache_ttl_s=sim.cache_ttl_s, clock=self._now,
                      keep_system_prompts=False),
            settings=self.settings.compaction(), store=self.store, max_output=sim.max_output,
            prices=prices_of(sim.prices or PRICING.get(sim.provider, PRICING["deepseek"])))
        # The live agent measures its system prompt and tool schemas; here they are the fitted overhead.
        self.cm.overhead = round(sim.tm.overhead / sim.tm.ratio) if sim.tm.ratio else sim.tm.overhead
        self._history: list[ModelMessage] = []
        self.memory: SessionMemory | None = None
        if self.settings.memory_enabled:
            model = notes_model or FunctionModel(self._write_notes, model_name="replay-notes")
            self.memory = SessionMemory(self.root / "notes.md", self.settings.compaction(), model=model,
                                        clock=self._now)
            self.cm.memory = self.memory

    @staticmethod
    def _typed(sim: Sim) -> Callable[[str], bool] | None:
        """What the transcript's person typed: its format's harness texts (reminders, injected
        context) are not carried as the user's words, as the agent's own never are."""
        if sim.transcript is None:
            return None
        return functools.partial(is_typed, harness=sim.transcript.harness_texts)

    async def _write_notes(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """The notes request: the stand-in writes the notes, or the `--model` model does; priced alike."""
        if self.sim.model is not None:
            reply = await model_request(self.sim.model, messages)
            text = "".join(p.content for p in reply.parts if isinstance(p, TextPart))
        else:
            prompt = "".join(str(p.content) for p in messages[-1].parts if isinstance(p, UserPromptPart))
            harness = self.sim.transcript.harness_texts if self.sim.transcript is not None else frozenset()
            text = standin_notes(messages[:-1], prompt, harness)
        self.calls.append(SideCall(list(messages), text, "main", kind="notes"))
        return ModelResponse(parts=[TextPart(text)])

    def _now(self) -> Any:
        from datetime import UTC, datetime

        return self.sim.now or datetime.now(UTC)

    def _on_event(self, event: Event) -> None:
        if event.layer == "compact" and event.action == "failed":
            self.failed += 1

    def _summarizer(self, cm: SummaryInputs) -> Any:
        async def summarize(messages: list[ModelMessage], prompt: str) -> str:
            text = await self.sim.summarize(messages, prompt)
            sent = join(messages, [ModelRequest(parts=[UserPromptPart(prompt)])])
            self.calls.append(SideCall(sent, text, "main"))
            return text
        return summarize

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        self.files.observe(sim.added)
        failed = self.failed
        before = len(self.cm.compactions)
        self.cm.persist(history)
        view, _, compacted = await self.cm.prepare_view(history)
        freed = {k: v for k, v in self.cm.view_savings.items() if v}
        compaction_freed = 0
        for result in self.cm.compactions[before:]:
            compaction_freed += max(0, result.tokens_before - result.tokens_after)
        self._history = list(history)
        calls, self.calls = self.calls, []  # this step's summaries, and notes written since the last step
        return Step(view, compacted, self.failed > failed, calls, freed, compaction_freed)

    async def observe(self, sent_tokens: int, output: int, response: ModelResponse) -> None:
        """The recorded response with what the provider would report for this request, fed to the
        live hook (calibration, and session notes in the background)."""
        reported = dataclasses.replace(response, usage=RequestUsage(input_tokens=sent_tokens, output_tokens=output))
        # The replay's run: what a run's context holds that the hook reads (its usage, no limits); the
        # side requests are priced as `SideCall`s, whatever the run would count of them.
        run = SimpleNamespace(messages=self._history, usage=RunUsage(), usage_limits=None)
        await self.cm.after_model_request(run, request_context=None,  # type: ignore[arg-type]
                                          response=reported)
        if self.memory is not None and self.memory.in_flight:
            assert self.memory.task is not None
            await self.memory.task

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()
        shutil.rmtree(self.root, ignore_errors=True)
        LIVE_ROOTS.discard(self.root)
