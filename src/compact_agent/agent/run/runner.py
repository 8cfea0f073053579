"""One agent session: model, tools, session file and the context pipeline wired together.

The REPL and print mode both drive an `AgentSession`: `run_turn` runs one user turn to completion
(tool loop and compactions included; the turn itself is turn.py's); `compact`, `rewind` and
`clear` back the slash commands. The pipeline (`ContextManager`) is a pydantic-ai capability:
every model request of the turn, including those deep inside a tool loop, goes through it.
What a session says as it starts is start_notes.py's; the models of its side requests (summary,
notes) are side_models.py's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import (
    ModelMessage,
)
from pydantic_ai.models import Model
from pydantic_ai.usage import RunUsage

from ...config import Limits, home_dir
from ...context import (  # the library's public API: the agent builds on nothing else
    CompactionResult,
    Compactor,
    ContextManager,
    Event,
    Restorer,
    SessionMemory,
    SharedPrefixSummarizer,
    default_layers,
)
from ...context.breaker_retry import retry_in_s  # when a paused breaker is tried again, as /status says
from ...context.shaping import preview  # a look at the next request's view, which decides nothing
from ...context.wiring import Internals, SummaryInputs  # and the one seam for what a coding agent wires in
from ...error_causes import reply_not_json
from ...error_notes import note_model, note_request_limit
from ...error_text import first_line
from ...models import ModelInfo, build_model, model_info, prices_of, provider_for, takes_images
from ...session.archives import glob_escape
from ...session.repair import handed_back
from ...session.store import SessionStore, ensure_private_dir
from ...words import wait_words
from ..safety.permissions import Permissions, resolve_path
from ..tools import names as tool_names
from ..tools.arg_errors import PlainArgumentErrors
from ..tools.base import ToolEnv
from ..tools.checkpoints import Checkpoints
from ..tools.file_state import (
    READ_STATE_FILE,
    HeldReads,
    ReadFileState,
    load_read_state,
    read_paths_in_view,
    save_read_state,
)
from ..tools.toolset import Restoring, build_toolset
from . import server_turns, server_windows, turn
from .ended_calls import EndedCalls
from .extensions import SessionExtensions
from .in_use import counted_after, in_use
from .layer_state import restore_layer_state
from .options import (
    SessionOptions,
    instruction_files,
    private_dirs,
    resolve_session_id,
    session_root,
    system_prompt,
)
from .request_limit import KeepAtLimit
from .request_settings import model_settings
from .retry import TransientRetry
from .rewinding import EDITS, follow_history
from .served_models import note_served
from .server_keys import sent_to
from .side_models import http_limits, session_memory, summary_model
from .start_notes import buffer_note, larger_than_known, reported_note, reported_window, window_setting
from .summary_wording import CODING
from .turn import TurnResult as TurnResult  # re-exported: print mode imports it from here
from .window_check import check_window, fixed_tokens
from .window_proof import WindowProof

if TYPE_CHECKING:
    from pydantic_ai.models.anthropic import AnthropicModelSettings

    from .attachments import Attachment
    from .rewinding import Rewound


class AgentSession:
    """A live session; not thread-safe, one turn at a time."""

    cm: ContextManager  # set in __init__ after the extensions, which read it (SessionParts) later
    summary_cache: tuple[str, Model]  # the summary model, once one other than the main one is asked for
    memory: SessionMemory | None  # the session's notes, which `close` lets go of

    def __init__(self, opts: SessionOptions, on_event: Callable[[Event], None] | None = None,
                 on_compact_start: Callable[[str, int], None] | None = None,
                 on_change: Callable[[str, dict[str, Any]], None] | None = None,
                 resolved: tuple[str, bool] | None = None,
                 on_tool: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.opts = opts  # resolved: (session id, exists) chosen before, for the REPL's banner
        # Every turn's tool calls and results, also of a turn a command runs (/init, a custom
        # command): print mode learns from them what it refused.
        self.on_tool = on_tool
        self.cwd = opts.cwd.resolve()
        self.settings = opts.settings
        provider = provider_for(opts.model, opts.base_url)
        self.info: ModelInfo = model_info(opts.model, provider=provider,
                                          window=opts.context_window or self.settings.context_window,
                                          prices=self.settings.prices,
                                          cache_ttl_minutes=self.settings.cache_ttl_minutes)
        self.info, self.reported = reported_window(opts, self.info, self.settings)  # a local server's word on it
        self.model = opts.model_override or build_model(opts.model, base_url=opts.base_url, api_key=opts.api_key,
                                                        **http_limits(self.settings))
        server_turns.wire(self.model, opts, self.info)  # joins user messages where an earlier run learned to
        self.session_id, exists = resolved or resolve_session_id(opts)
        home = opts.home or home_dir()
        for d in (home, home / "projects"):  # also when an older version made them 0755
            ensure_private_dir(d)
        self.store = SessionStore(session_root(self.cwd, opts.home), self.session_id)
        self.memory = None  # the notes, made in `_open`: a start failing before them closes none
        self.store.lock(cli=True)
        try:  # a start that fails holding the lock lets go of it (a line typed meanwhile is taken back)
            self._open(exists, on_event, on_compact_start, on_change)
        except BaseException:
            self.close()
            raise

    def _open(self, exists: bool, on_event: Callable[[Event], None] | None,
              on_compact_start: Callable[[str, int], None] | None,
              on_change: Callable[[str, dict[str, Any]], None] | None) -> None:
        """The rest of the start, holding the session's lock: its history, tools, pipeline and agent."""
        opts = self.opts
        self.warnings: list[str] = []
        self.notes: list[str] = []  # what the load says that is no problem (a turn the user stopped)
        self.messages: list[ModelMessage] = []
        # When the latest compaction saved in this session was made (a resumed one): a response answered
        # before it reports a request that held all compacted since (or another model's: in_use.py).
        self.compacted_at: datetime | None = None
        if exists:
            loaded = self.store.load()
            self.messages = loaded.messages
            self.warnings += loaded.warnings
            self.notes = loaded.notes
            self.compacted_at = counted_after(self.messages, self.model, loaded.boundaries)
        self.read_state = self._load_read_state()
        st = self.settings
        self.permissions = Permissions(self.cwd, opts.permission_mode, ask=opts.ask,  # type: ignore[arg-type]
                                       extra_dirs=[Path(d) for d in st.extra_dirs], deny_bash=st.deny_bash,
                                       allow_bash=st.allow_bash, deny_paths=st.deny_paths,
                                       private_dirs=private_dirs(opts.home),
                                       readable=[f"{glob_escape(str(self.store.dir.resolve()))}/tool-results/*",
                                                 f"{glob_escape(str(self.store.archive_dir.resolve()))}/"
                                                 f"{glob_escape(self.session_id)}-*.jsonl"])
        self.permissions.allowed_tools.update(opts.allowed_tools)
        # A rewind writes only where the file tools may; the project's files are named relative to it.
        self.checkpoints = Checkpoints(self.store.dir / "checkpoints", archive_dir=self.store.archive_dir, root=self.cwd,
                                       may_restore=lambda p: self.permissions.outside_message(p) is None).load()
        if said := follow_history(self.checkpoints, self.messages):  # an edit since the last run
            self.warnings.append(said)
        self.store.on_rewrite = self._rewritten
        self.env = ToolEnv(self.cwd, self.settings, self.read_state, self.permissions, self.checkpoints,
                           on_change=on_change, images=takes_images(self.info, self.settings.images))
        self.limits = Limits.for_window(self.info.window, self.info.max_output, self.settings)
        self._user_on_event = on_event
        # Hooks, plan, MCP servers, usage ledger (kept across /clear: the MCP connections).
        self.ext = SessionExtensions(self, resumed=exists, previous=getattr(self, "ext", None))
        held = self._held_reads = HeldReads(self.read_state)  # read as restored once the compaction holds
        restoring = Restoring(self.env)  # the files read again, and what became of each file changed
        restorer = Restorer(
            recent_files=lambda: list(reversed(self.read_state.paths())), state=restoring.state,
            reread=lambda paths, n: held.hold(lambda: restoring.reread(paths, n, f"c{len(self.cm.compactions)}")),
            reset=lambda: None,  # the reads a compaction leaves in view stay read: _after_compact
            resolve=lambda s: resolve_path(self.cwd, s),
            attachments=lambda: self.ext.attachments(),
        )
        self.summary_usage: list[Any] = []
        # Microcompact clears old tool results (of the tools names.py says); with Anthropic, its server
        # instead if the settings ask.
        self.server_side_clearing = self.info.provider == "anthropic" and self.settings.anthropic_server_clearing
        self.memory = session_memory(self)
        # The library's public API, with what a coding agent adds: the session file (its side
        # files take spilled results and the collapse log), notes beside it that outlive a turn,
        # files restored after a compaction, the hooks around it.
        compaction = self.settings.compaction()
        self.cm = ContextManager.wired(
            Internals(limits=self.limits, summarizer=self._summarizer, compactor=Compactor(self.limits, restorer, wording=CODING),
                      layers=default_layers(compaction, self.store, server_side_clearing=self.server_side_clearing,
                                            compactable=tool_names.COMPACTABLE_TOOLS),
                      event_sink=self._on_event, on_compact_start=on_compact_start, provider=self.info.provider,
                      cache_ttl_s=self.info.cache_ttl_s, memory=self.memory,
                      after_compact=self._after_compact, server=server_windows.server_of(self),
                      refit_prompt=lambda text, threshold: turn.refit_prompt(self, text, threshold)),
            settings=compaction, store=self.store, notes_in_background=True, max_output=self.info.max_output,
            prices=prices_of(self.info), before_compact=self.ext.before_compact,
        )
        restore_layer_state(self)
        if self.cm.breaker_open:  # paused by an earlier run: said once, as /status says it
            when = "" if (wait := retry_in_s(self.cm)) is None else f"it is tried again in {wait_words(wait)}; "
            self.notes.append(f"automatic compaction is paused in this session: the last {self.cm.failures} tried "
                              f"in a row failed or would not shrink the context; {when}a /compact that succeeds "
                              "resumes it, as does /compact --resume-auto")
        # No window given: the one this endpoint and model showed in an earlier session; given a
        # larger one, a prompt over it taken whole forgets it (window_proof.py).
        self.window_proof = WindowProof(self)
        self.notices = [line] if (line := server_windows.start_at_remembered(self)) else []
        self.limits = self.cm.limits  # the server's smaller window, where the session learned it (state.py)
        if (line := buffer_note(self)) is not None:
            self.warnings.append(line)
        found = instruction_files(self.cwd, self.permissions)  # none the file tools may not read
        self.instructions, self.instructions_paths = found.text, found.paths
        self.warnings += found.left_out  # a file left out is said at start, as /memory says it
        self.retry = TransientRetry(retries=self.settings.transient_retries, on_retry=self._on_retry,
                                    on_unfinished=lambda r: self._on_event(Event("provider", "no_finish_reason")))
        # What a SIGTERM or SIGHUP saves of the turn running (turn.py). First: the answer it keeps is
        # the one the others made of it (after_model_request runs them last to first).
        self.ended_calls = EndedCalls()
        self.agent = Agent(self.model, instructions=self.system_prompt, toolsets=[build_toolset(self.env), *self.ext.toolsets()],
                           capabilities=[self.ended_calls, self.cm, self.ext.ledger, self.retry, PlainArgumentErrors(),
                                         self.window_proof, KeepAtLimit(self._keep_at_limit)], retries=3,
                           model_settings=self._model_settings())
        self.turns = 0
        self.turn_typed: str | None = None  # of the turn running, what the user typed (turn.py)
        self.command_file = False  # the message is a custom command's file's (custom_commands.py): fenced attachments
        self.turn_input: tuple[str, str] | None = None  # of the prompt fit_input cut: as sent, as it came
        self.usage = RunUsage()
        self.window_minimum = check_window(self, self.info, window_setting(self))  # none learned under it is advised
        self.notices += [line] if (line := reported_note(self)) else []  # kept once the session can start in it
        self.notices += [line] if (line := larger_than_known(self)) else []  # nothing compacts until a refusal

    # -- wiring ------------------------------------------------------------------------------
    def system_prompt(self) -> str:
        """The system prompt every request of this session sends: options.py's `system_prompt` of its files."""
        return system_prompt(self.cwd, self.instructions, self.opts.append_system_prompt)

    def _summarizer(self, cm: SummaryInputs) -> SharedPrefixSummarizer:
        """The summary request; a `summary_model` other than the main one is asked for no more than
        it writes (the registry's `max_output`: deepseek-chat writes 8K where deepseek-reasoner
        writes 64K, and a request asking for more is refused)."""
        model, name = summary_model(self), self.settings.summary_model or ""
        most = None if model is self.model else model_info(name, provider=provider_for(name, self.opts.base_url)).max_output
        s = SharedPrefixSummarizer(model, params=cm.last_params, settings=cm.last_settings, max_output=most,
                                   assistant=CODING.assistant)
        s.usage = self.summary_usage
        return s

    def _model_settings(self) -> AnthropicModelSettings | None:
        return model_settings(self.info.provider, self.server_side_clearing, self.settings.compaction(),
                              self.limits.threshold)

    def _keep_at_limit(self, messages: Sequence[ModelMessage]) -> None:
        """The turn's history when its request limit stopped it: saved, and marked (request_limit.py)."""
        self.cm.persist(handed_back(list(messages)))
        self.store.note_limit_stop(self.settings.max_requests_per_turn)

    def _on_retry(self, error: Exception, attempt: int, delay: float) -> None:
        said = reply_not_json(error) or first_line(error)  # in words: the event is on stream-json's stdout too
        self._on_event(Event("provider", "retry", detail={"error": said[:300],
                                                          "attempt": attempt, "delay_s": delay}))

    def _on_event(self, event: Event) -> None:
        try:
            self.store.event_log.append(event.to_json())
        except OSError:
            pass
        if event.layer == "window":  # the server's limit learned: a large input is cut to fit it
            self.limits = self.cm.limits
            if event.action == "learned":  # and the next sessions with this server start within it
                server_windows.keep_learned(self, event.tokens_after, event.trigger)
                self.window_proof.learned(event.tokens_after)
        if self._user_on_event:
            self._user_on_event(event)

    def _load_read_state(self) -> ReadFileState:
        return load_read_state(self.store.dir / READ_STATE_FILE, self.warnings)

    def _save_read_state(self) -> None:
        save_read_state(self.read_state, self.store.dir / READ_STATE_FILE, self.warnings)

    # -- turns (turn.py) ---------------------------------------------------------------------
    def attachments(self, typed: str) -> list[Attachment]:
        """What `typed` (the user's own words) names, each with what happens to it (attachments.py)."""
        return turn.attachments(self, typed)

    def fit_input(self, prompt: str, typed: str | None = None) -> tuple[str, str | None]:
        """`prompt` as it can go out, and a line for the user when some of it went to a file."""
        return turn.fit_input(self, prompt, typed)

    def mentions(self, typed: str) -> list[ModelMessage]:
        """The files and images the user attached in what they typed, as read_file results."""
        return turn.mentions(self, typed)

    async def run_turn(self, prompt: str, on_text: Callable[[str], None] | None = None,
                       on_tool: Callable[[dict[str, Any]], None] | None = None, *,
                       typed: str | None = None) -> TurnResult:
        """One user turn; `typed` is the part of `prompt` the user typed, the only place `@path`
        attaches a file (None: all of it)."""
        try:
            return await turn.run_turn(self, prompt, on_text, on_tool, typed=typed)
        except UsageLimitExceeded as e:  # the limit's number is all pydantic-ai says: where it came from too
            note_request_limit(e, self.opts.config)
            raise
        except Exception as e:  # a 404's line points where the model was chosen: -m, /model, a file
            note_model(e, self.info.name, self.opts.config)
            # …and names the models the server serves (served_models.py): one given with --base-url,
            # or the one the OpenAI client reads from OPENAI_BASE_URL
            if self.opts.base_url or (provider_for(self.info.name, None) == "openai" and sent_to(None, "openai")):
                await note_served(e, self.model)
            raise

    async def _after_compact(self, result: CompactionResult) -> None:
        """Forget the reads a compaction summarised away; keep those still in view (kept tail, restored files).

        edit_file trusts a read only while the model can see it. Forgetting every read, as a reset
        before restoring did, also dropped reads whose results the compaction kept: the model then
        had the exact text in front of it and edit_file still refused, "has not been read yet".
        The checkpoints now point into the archive of the history as it was (still `self.messages`).
        """
        self.checkpoints.compacted(self.messages, result.archive)
        visible = {resolve_path(self.cwd, p) for p in read_paths_in_view(result.messages)}
        self._held_reads.settle(visible)  # what it restored, read while it was built (HeldReads)
        for path in self.read_state.paths():
            if path not in visible:
                self.read_state.forget(path, summarised=True)
        await self.ext.after_compact(result)

    def _rewritten(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        """The session was rewritten: the checkpoints follow an edit (a compaction moves them in
        `_after_compact`, a rewind itself); those it drops are said (stream_events.problem_line)."""
        if boundary.get("trigger") in EDITS and (line := follow_history(self.checkpoints, list(messages))):
            self._on_event(Event("checkpoints", "dropped", detail={"line": line}))

    # -- slash-command backends ----------------------------------------------------------------
    async def compact(self, instructions: str = "", *, pivot: int | None = None, direction: str | None = None,
                      confirm: Callable[[CompactionResult], Awaitable[bool]] | None = None) -> CompactionResult:
        """/compact (manual.py): `confirm` (/compact --preview) sees it before anything is rewritten."""
        from .manual import compact

        result = await compact(self, instructions, pivot, direction, confirm)
        self.messages = result.messages
        self.cm.close_breaker()
        self._save_read_state()
        return result

    def context_tokens(self) -> int:
        """The size of the view the next request would send, by a look that decides nothing for it.
        Before this run's first request (a resumed session) the manager knows no system prompt or
        tools yet: those the first request will carry count, as /compact counts them (the spinner
        said 'compacting 19 tokens…' of a context of 1,038). Counted as /context counts it: the
        provider's count of the last request where it still holds (in_use.py)."""
        view = preview(self.cm, list(self.messages)).messages
        return in_use(self.cm, view, self.compacted_at, self.cm.overhead_estimate or fixed_tokens(self))

    def rewind(self, n: int) -> Rewound:
        """/rewind N (rewinding.py): files, conversation and plan to before checkpoint n."""
        from .rewinding import rewind

        return rewind(self, n)

    def clear(self) -> None:
        """Start a fresh session in the same directory (the old one stays on disk)."""
        self.switch_to(None)

    def switch_to(self, session_id: str | None) -> None:
        """Continue in session `session_id` (None: a new one) of this directory (/clear, /resume).
        If it cannot be opened (missing, in use), this session is opened again and the error raised.
        The callbacks it was made with (events, compaction start, changes, tool calls) carry over."""
        old, saved = self.session_id, self.store.path.exists()
        self.close()
        self.opts.continue_last = False
        callbacks = (self._user_on_event, self.cm.on_compact_start, self.env.on_change)
        try:
            self.opts.session_id = session_id
            self.__init__(self.opts, *callbacks, on_tool=self.on_tool)  # type: ignore[misc]
        except Exception:
            # Back to the session it was, by its id and whether it has a file: one that saved
            # nothing yet has none to find, and looking it up would hide the error with its own.
            self.opts.session_id = old
            self.__init__(self.opts, *callbacks, resolved=(old, saved), on_tool=self.on_tool)  # type: ignore[misc]
            raise

    async def aclose(self) -> None:
        """`close` after letting a notes extraction in flight finish briefly (print mode exits next)
        and disconnecting MCP servers."""
        if self.memory is not None:
            await self.memory.drain(self.settings.memory_wait_s)
        await self.ext.aclose()
        self.close()

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()
        self.store.unlock()
        self.store.remove_if_unused()
