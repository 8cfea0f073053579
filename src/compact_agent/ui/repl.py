"""The interactive loop: prompt, stream the answer with tool lines and a spinner, interrupt with
Esc or Ctrl-C, `!cmd` for the shell, and say how to come back.

Beside it: repl_start.py (the banner and the imports while the prompt is up), repl_building.py (the
session built meanwhile, and the lines typed before it is there), session_feed.py (what the session
reports while it works: compactions, savings, the plan), session_picker.py (`--resume` without an
id), resume_switch.py (`/resume`'s switch) and work_keys.py (the spinner and keys while work runs)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.input import Input, create_input
from rich.console import Console

from .. import retry_notice, secrets
from ..agent.run.options import SessionOptions, session_root
from ..agent.safety.permissions import AskFn
from ..error_text import GO_ON, describe_error
from . import render
from .approval import make_ask, nothing, question_lines, typed_only, yes_no
from .command_registry import COMMANDS, ExitRepl, bare_exit, is_command, running
from .goodbye import resume_hint
from .interrupt_keys import InterruptKeys
from .pastes import Pastes, as_sent
from .prompt_ctrl_c import PromptCtrlC
from .prompt_excerpt import print_prompt
from .prompt_input import make_prompt
from .repl_building import build, built, keep_typed, ready, take_back, typed_while_starting
from .repl_start import Start
from .rewound_prompt import SentPrompts, pastes_expanded
from .session_feed import SessionFeed
from .session_picker import pick
from .shell_escape import shell_output, show_shell_output
from .toolbar import drawn, starting_line, status_line
from .turn_view import TurnView, kept_finished
from .typeahead import echo_back
from .work_keys import WorkKeys

if TYPE_CHECKING:  # loaded in a worker thread while the prompt is up (repl_start.py)
    from pathlib import Path

    from pydantic_ai.messages import ModelMessage

    from ..agent.run.runner import AgentSession
    from ..agent.tools.checkpoint_entry import Checkpoint
    from ..cli_resume import SessionSettings

    OptionsFor = Callable[[Path], SessionSettings]


def _ask(console: Console, keys: InterruptKeys | None = None,
         stream: TextIO | None = None) -> AskFn:
    """The typed-line permission question (no menu): for callers without a terminal."""
    return make_ask(console, keys.paused if keys is not None else nothing, stream)


class Repl:
    """One REPL: the session, its console and input, and what the next message carries (`!cmd` output)."""

    def __init__(self, opts: SessionOptions, console: Console, inp: Input | None, prompt_io: dict[str, Any],
                 clock: Callable[[], float], before_prompt: Callable[[], None] | None = None,
                 ask_stream: TextIO | None = None, options_for: OptionsFor | None = None,
                 started: float | None = None) -> None:
        self.opts, self.console, self.inp, self.prompt_io, self.clock = opts, console, inp, prompt_io, clock
        self.started = started  # when the terminal was last read before the REPL (`clock`'s time)
        self.before_prompt, self.ask_stream = before_prompt, ask_stream
        #: The options a session this REPL opens runs with (cli_resume.py: this command line's, over
        #: what the session remembers); None: the REPL's own, whichever session it opens.
        self.options_for = options_for
        self.work = WorkKeys(console)  # the spinner and the keys while a turn or a `!cmd` runs
        self.pending: list[str] = []  # shell output waiting to go with the next message
        self.pastes = Pastes()  # large pastes of the input being edited, behind their placeholders
        self.sent = SentPrompts()  # each prompt sent, as shown: what /rewind gives back
        self.feed = SessionFeed(console, lambda: self.work.view, self.window, lambda: self.session)  # what it reports
        self.status_text = ""  # the toolbar under the prompt, computed once per prompt, fitted when drawn
        self.session: AgentSession | None = None  # None until built (the prompt is up before: repl_start.py)
        self.starting: asyncio.Future[None] | None = None
        self.prompt: PromptSession[str] | None = None
        self.start: Start | None = None  # the banner's facts: the session id a line typed early is saved in
        self.early: str | None = None  # the entry of a line saved before the session was built
        self.shown_under_line = False  # the build printed a resumed session's last exchanges under it

    @property
    def keys(self) -> InterruptKeys | None:
        """The key reader of turns: what was typed ahead (/rewind puts a prompt back in it)."""
        return self.work.keys

    def window(self) -> int:
        """The session's window (0 before the session is built): a layer's saving under a hundredth
        of it is not said (render.layer_line)."""
        return self.session.cm.limits.window if self.session is not None else 0

    # -- the loop ----------------------------------------------------------------------------
    async def run(self, first_message: str | None, pick_session: bool) -> None:
        c = self.console
        if pick_session and not await pick(self.opts, c, self.prompt_io, self.before_prompt, self.options_for):
            return  # `--resume` without an id, and the user left the list (session_picker.py)
        self.work.keys = InterruptKeys(self.inp, lambda: None, self.pastes, clock=self.clock)
        menu = self.ask_stream is None and c.is_terminal and self.inp is not None
        self.opts.ask = make_ask(c, self.work.paused, self.ask_stream, use_menu=menu, inp=self.inp,
                                 output=self.prompt_io.get("output"), clock=self.clock)
        start = self.start = Start.of(self.opts)
        c.print(start.banner(c.width), markup=False)
        self.status_text = starting_line(self.opts.permission_mode == "yes", start.name)
        self.starting = asyncio.ensure_future(build(self, start))  # repl_building.py
        self.starting.add_done_callback(functools.partial(built, self))
        cwd = self.opts.cwd.resolve()
        self.sent.root = session_root(cwd, self.opts.home)  # noted there for a later run too (sent_record.py)
        self.prompt = make_prompt(self.sent.root, lambda: self.command_names(cwd), cwd,
                                  toolbar=drawn(lambda: self.status_text), on_expand=self.expand_above, pastes=self.pastes,
                                  clock=self.clock, session_id=self.session_id, **self.prompt_io)
        # Before the keys follow the prompt: a read of what was typed at start-up turns no bracketed
        # paste on (it came before any could), which says a prompt waits where none does yet.
        typed_while_starting(self, self.started)
        self.work.keys.follow(self.prompt.app)  # bracketed paste during a turn too; the prompt's keys are reads
        running.append(self)
        echo_back()
        try:
            await self.loop(self.prompt, first_message)
        finally:
            running.remove(self)
            await asyncio.wait([self.starting])  # a session still being built is finished, then closed
            if self.session is not None:
                await self.session.aclose()  # /clear and /resume swap what it holds, not the object
            elif not self.starting.cancelled() and self.starting.exception() is not None:
                take_back(self)
            self.goodbye()
        self.starting.result()  # a start-up failure (the prompt was ended for it) is reported

    async def loop(self, prompt: PromptSession[str], first_message: str | None) -> None:
        c = self.console
        ctrl_c = PromptCtrlC(c, self.clock)  # a draft cleared; twice at an empty prompt: leave
        while True:
            queued = self.keys.take_queued() if self.keys is not None and first_message is None else None
            given = first_message is not None  # on the command line: a message, whatever it says
            if first_message is not None or queued is not None:
                # The message given on the command line, or a line typed ahead with Enter during the
                # turn, shown as the prompt would have shown it (a paste in it as its placeholder).
                line = first_message if first_message is not None else queued or ""
                first_message = None
                print_prompt(c, secrets.redact(line))
                shown = line
                line = self.pastes.take(line)
            else:
                if self.session is not None:
                    self.status_text = status_line(self.session)
                if self.before_prompt is not None:
                    self.before_prompt()
                typed = self.keys.take_typed() if self.keys else ""
                self.pastes.keep(typed)  # a paste typed ahead during the turn stays behind its placeholder
                try:
                    shown = line = await prompt.prompt_async("› ", default=typed)
                    line = self.pastes.take(line)  # `[pasted 240 lines]` on the screen, the paste in the message
                except KeyboardInterrupt:
                    if ctrl_c.leaves(prompt.default_buffer.text):
                        break
                    continue
                except EOFError:
                    break
            if not given and bare_exit(shown):  # `exit` or `quit` alone, as at a shell: /exit
                line = shown = "/exit"
            if line.strip() and not is_command(shown):
                keep_typed(self, "\n\n".join([*self.pending, as_sent(line)]))
            waited = self.session is None
            if line.strip() and not await ready(self):
                break
            if waited and self.shown_under_line:
                # Entered while the session was built (`-c`, typing at once), the line was shown
                # above what the build then printed (the resumed session's last exchanges, its
                # warnings): it is said again under them, where it comes in the conversation.
                self.shown_under_line = False
                print_prompt(c, secrets.redact(shown))
            if not await self.handle(line, command=is_command(shown)):
                break

    async def above_prompt(self, show: Callable[[], Any]) -> None:
        """Print while the prompt is up: it steps aside and comes back under what was printed."""
        if self.prompt is not None and self.prompt.app.is_running:
            await run_in_terminal(show)
        else:
            show()

    async def expand_above(self) -> None:
        """Ctrl-O at the prompt: the last turn's tool calls in full, above it (what is typed stays)."""
        def show() -> None:
            if self.session is None:
                self.console.print("the session is still starting", style="dim")
                return
            from .expand import expand

            expand(self.session, "", self.console)

        await self.above_prompt(show)

    def command_names(self, cwd: Any) -> list[str]:
        """What `/` completes: the commands registered so far (all of them once the session is built)."""
        if self.session is None:
            return [*COMMANDS, "quit"]
        from .custom_commands import custom_commands

        return [*COMMANDS, "quit", *custom_commands(cwd)]

    async def handle(self, line: str, command: bool | None = None) -> bool:
        """One input line; False to leave. `command`: whether the line as shown is a command (see
        `is_command`; the line itself when not given)."""
        s = self.session
        if not line.strip() or s is None:
            return True
        if command is None:
            command = is_command(line)
        try:
            if command and line.startswith("!"):
                await self.shell(s, line.strip()[1:].strip())
            elif command:
                from .commands import dispatch

                with retry_notice.telling(self.feed.on_retry):  # a /compact's wait is said as a turn's
                    await self.work.command(dispatch(s, line.strip(), self.console))  # Ctrl-C: not the REPL
            else:
                line = as_sent(line)  # a paste's indentation kept (pastes.as_sent)
                message = "\n\n".join([*self.pending, line])
                self.pending.clear()
                await self.turn(message, typed=line)  # `@path` in the typed line only, not in `!cmd` output
        except ExitRepl:
            return False
        except Exception as e:  # noqa: BLE001 - one line, then back to the prompt
            from pydantic_ai.exceptions import UsageLimitExceeded

            from ..session.loading import tools_ran_in_last_turn

            ran = not isinstance(e, UsageLimitExceeded) and tools_ran_in_last_turn(s.messages)
            hint = GO_ON if ran else None  # a failure after tools ran: sent again, they would run again
            self.console.print(describe_error(e, hint), style="red", soft_wrap=False)  # prose: wrapped at words
        finally:
            self.feed.stop_status()  # a compaction that ended without its event
        return True

    async def turn(self, message: str, typed: str | None = None) -> None:
        """Run one turn; Esc or Ctrl-C cancels it (the session keeps what was saved), not the REPL."""
        s = self.session
        assert s is not None  # a line waits for the session (ready)
        self.attachment_notes(s, message if typed is None else typed)
        message, too_large = s.fit_input(message, typed)  # input larger than a request goes as a file
        if too_large is not None:
            self.under(too_large, "yellow")
        self.feed.say_held()  # what the layers decided for this turn's request, under its prompt
        view = TurnView(self.console, lambda: s.cm.last_view_tokens_est or 0, clock=self.clock)
        made = len(s.checkpoints.list())
        try:
            with retry_notice.telling(self.feed.on_retry):  # a rate limit's wait is said, not `thinking… 40s`
                done = await self.work.interruptible(s.run_turn(message, on_text=view.on_text, on_tool=view.on_tool,
                                                                typed=typed), view)
            if done is None:  # stopped by the user: a later resume says so, not as a run that died
                with contextlib.suppress(OSError):
                    s.store.note_stopped()
                self.calls_kept(s, view)
            elif done.cut:  # an answer that ends mid-sentence must not read as whole
                from ..agent.run.turn import CUT_NOTE

                self.under(CUT_NOTE, "yellow")
        finally:
            self.remember_sent(s, made, typed, message)
            self.feed.say_after()
            with contextlib.suppress(OSError):  # a message the turn never sent is marked so (repl_building.keep_typed)
                s.store.settle_prompt()

    def calls_kept(self, s: AgentSession, view: TurnView) -> None:
        """Under `interrupted`, when the turn was stopped while the model's tool calls ran: they are
        kept, each with its result (agent/run/ended_calls.py), and the next message goes on from them.
        A call that had finished as the key came shows its result line here, as the others did."""
        from ..session.last_run import BY_USER, ended_by
        from ..session.load_warnings import calls_ended

        by, unfinished = ended_by(s.messages)
        if by == BY_USER:
            view.kept_results(kept_finished(s.messages))
            self.under(f"the model's tool calls are kept with their results: {calls_ended(unfinished)}; "
                       "your next message goes on from there", "dim")

    def under(self, said: str, style: str) -> None:
        """`  ⎿ said` under the turn's prompt, its lines wrapped at words under its own text, four
        columns in: a line that went on at column 0 read as a line of its own (the note of an input
        cut to the window broke before its path, which then began a line of its own)."""
        from . import cells

        for n, line in enumerate(cells.wrap(said, max(20, self.console.width - 5), fold=False)):
            self.console.print(f"{'    ' if n else '  ⎿ '}{line}", style=style, markup=False, highlight=False,
                               soft_wrap=True)

    def remember_sent(self, s: AgentSession, made: int, typed: str | None, message: str) -> None:
        """The line just sent as it was shown (a paste as its placeholder; a command that ran
        the turn, `/init` or a custom one, as typed, with the digest of the `message` it sent),
        by the checkpoint its turn made: what `/rewind` puts back in the input (rewound_prompt.py),
        and how the lists of past prompts show it (sent_record.shown_as)."""
        line, held = self.pastes.sent
        cp = s.checkpoints.current
        ours = as_sent(pastes_expanded(line, held)) == typed if typed is not None else line.strip().startswith("/")
        if cp is not None and len(s.checkpoints.list()) > made and ours:
            shown, sent = (as_sent(line), None) if typed is not None else (line.strip(), message)
            self.sent.remember(s.session_id, cp, shown, held, sent)

    def prompt_back(self, cp: Checkpoint, messages: Sequence[ModelMessage] | None) -> str:
        """What the input starts with after `/rewind` to before `cp`: its prompt as shown when sent.
        Asked before the rewind cuts `messages`, what `cp` indexes (`rewinding.indexed_by`)."""
        assert self.session is not None
        return self.sent.give_back(self.session.session_id, cp, messages, self.pastes)

    def shown_prompt(self, cp: Checkpoint) -> str | None:
        """The prompt of `cp` as it was shown when sent, on one line, if known (rewound_prompt.py)."""
        return self.sent.shown_line(self.session.session_id, cp) if self.session is not None else None

    def attachment_notes(self, session: AgentSession, message: str) -> None:
        """Say what goes with the message: each `@path` and pasted image path, and why one does not."""
        for a in session.attachments(message):
            style = "dim" if a.line.startswith("attached ") else "yellow"
            self.under(a.line, style)

    async def shell(self, session: AgentSession, command: str) -> None:
        """`!cmd`: run it under a spinner; Esc or Ctrl-C stops the command (its process group), not the
        REPL, and what earlier commands printed still goes with the next message."""
        if not command:
            self.console.print("usage: !COMMAND (runs it in the working directory; the output goes with your "
                               "next message)")
            return
        view = TurnView(self.console, lambda: 0, clock=self.clock)
        out = await self.work.interruptible(shell_output(session, command), view, f"running !{command[:40]}")
        if out is None:
            self.console.print("the command was stopped; its output does not go with your next message",
                               style="dim")
            return
        self.pending.append(show_shell_output(self.console, command, out))

    async def confirm(self, question: str) -> bool:
        """A yes/no question (`[y/N]`) answered by one key, only y = yes (approval.yes_no); a typed line from
        `ask_stream` without a terminal, or in a dumb one (kept as typed). A compaction's spinner stops first."""
        self.feed.stop_status()
        if self.ask_stream is not None:
            answer = self.console.input(question, markup=False, stream=self.ask_stream)
            return answer.strip().lower() in ("y", "yes")
        with self.work.paused() as hand_over:  # the question reads the keys, from when it is up
            if not hand_over():  # Ctrl-C typed before it was up: the command stops
                return False
            if self.before_prompt is not None:
                self.before_prompt()  # keys typed from here answer it; those typed before wait for the prompt
            yes = await yes_no(question, self.inp, self.prompt_io.get("output"))
        if not typed_only(self.prompt_io.get("output")):  # the answer stays, after the question as it waited
            self.console.print(question_lines(question, self.console.width) + ("y" if yes else "n"), markup=False,
                               highlight=False, soft_wrap=True)
        return yes

    def session_id(self) -> str | None:
        """The id of the session a line typed now goes to (the one being built, in the first seconds)."""
        if self.session is not None:
            return self.session.session_id
        return self.start.session_id if self.start is not None else None

    def saved_session(self) -> str | None:
        """The id of the session this REPL has saved something in, None before anything is: what the
        line of a REPL ended by SIGTERM or SIGHUP says to resume (repl_signals.py)."""
        s = self.session
        if s is not None:
            return s.session_id if s.store.path.exists() else None
        if self.start is not None and (self.start.exists or self.early is not None):
            return self.start.session_id
        return None

    def goodbye(self) -> None:
        s = getattr(self, "session", None)
        if s is not None and s.store.path.exists() and s.messages:
            for line in resume_hint(s.session_id, self.console.width, s.store.root):
                self.console.print(line, style="dim", markup=False, highlight=False, soft_wrap=True)


async def run_repl(opts: SessionOptions, *, first_message: str | None = None, pick_session: bool = False,
                   console: Console | None = None, inp: Input | None = None, output: Any = None,
                   clock: Callable[[], float] = time.monotonic, before_prompt: Callable[[], None] | None = None,
                   ask_stream: TextIO | None = None, options_for: OptionsFor | None = None,
                   started: float | None = None) -> None:
    """`inp`/`output` are prompt_toolkit's; tests pass a pipe input, a dummy output, `before_prompt` to type
    the next line only once the prompt waits for it, and `ask_stream` for the permission answers.
    `options_for`: what a session picked from `-r`'s list or switched to with `/resume` runs with.
    `started`: since when (by `clock`) keys typed before the first prompt piled up unread; by default
    since the command line began (typeahead.began)."""
    console = console or render.make_console()
    if inp is None:
        with contextlib.suppress(Exception):
            inp = create_input()
    prompt_io: dict[str, Any] = {"input": inp} if inp is not None else {}
    if output is not None:
        prompt_io["output"] = output
    await Repl(opts, console, inp, prompt_io, clock, before_prompt, ask_stream, options_for,
               started).run(first_message, pick_session)
