"""The permission question: what the tool wants, then a y/a/n menu the user can see and answer.

The turn's spinner is stopped before anything is printed (a spinner redrawing over the question
hid it and swallowed the answer), the question says "waiting for approval", and the answer is a
menu as in Claude Code: arrow keys and Enter, or y / a / n, Esc = no. Ctrl-C cancels the turn.
The third choice, "No, and tell the model what to do instead", then asks for one line, which the
model gets as the call's result, marked as the user's instruction (permissions.Instead): it changes
course in the same turn, with no need to stop the turn and type a new message.

The menu is a small prompt_toolkit application run in its own thread: the tool that asks is
synchronous (it holds the event loop), and a prompt_toolkit app needs a loop of its own.
Without a terminal (tests, a pipe), or in a dumb one (TERM=dumb), the question falls back to one
typed line.

The REPL's own yes/no questions (`/rewind N`, `/compact --preview`) take one key the same way
(`yes_no`), and a typed line where the approval question does (`typed_only`). An Enter typed right
after the key goes with the answer (answer_enter.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.text import Text

from ..agent.safety.permissions import INSTRUCTION_MARK, Answer, AskFn, Instead
from . import cells
from .answer_enter import AnswerEnter, typed_before, typed_on
from .folded_lines import hanging, shown_whole
from .menu_typing import TYPING_NOTE, TypingGuard
from .typed_answer import LeaveAsked as LeaveAsked
from .typed_answer import not_words, typed_answer
from .typed_answer import scope_words as scope_words
from .typed_answer import typed_line as typed_line
from .typed_answer import typed_only as typed_only
from .visible import visible

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples

CHOICES = (("once", "y", "Yes"), ("always", "a", "Yes, and don't ask again for {what} this session"),
           ("instead", "n", "No, and tell the model what to do instead"))
#: For a line the deny rules cannot read (`held`): no "always", and no is the default (Enter). Its
#: keys mean what they mean at the usual menu: `n` is "instead" at both (it was a plain no here, and
#: `i` "instead": a user who had learned one menu answered the other wrong); a plain no is Esc at both.
HELD_CHOICES = (("deny", "escape", "No"), ("once", "y", "Yes, run it this once"),
                ("instead", "n", "No, and tell the model what to do instead"))
KEYS = {"y": "y", "a": "a", "n": "n", "escape": "esc"}
#: Keys that also pick a choice, at both menus: `i` was the held menu's "instead".
ALSO = {"i": "instead"}
WAITING = "waiting for approval · ↑↓ Enter · y/a/n · esc = just no · ctrl-c stops"
HELD_WAITING = "waiting for approval · ↑↓ Enter · y/n · Enter or esc = just no · ctrl-c stops"
INSTEAD_PROMPT = "  what should the model do instead? (Enter alone or esc: just no) › "
#: Said under the held menu when `a` is pressed there: the key did nothing, without a word.
HELD_NO_ALWAYS = "a: nothing allowed · no “always” for a line the deny rules cannot read; each run is asked · y runs it once"


def menu_lines(tool: str, selected: int, width: int = 200, held: bool = False, note: str = "") -> StyleAndTextTuples:
    """(style, text) fragments of the menu, one choice per line, the selected one marked. A choice
    too long for `width` goes on under its own words (`(a)` is never split from its parentheses),
    and the key line breaks between its items: the window's own wrapping cut `(` from `a)`.
    `held`: HELD_CHOICES (a line the deny rules cannot read). `note`: a line under the keys, broken
    between its items as they are (HELD_NO_ALWAYS)."""
    width = max(20, width - 1)  # the last column: a terminal may wrap there by itself
    out: StyleAndTextTuples = [("bold", f"Allow {tool}?\n")]
    for i, (_, key, label) in enumerate(HELD_CHOICES if held else CHOICES):
        mark = "❯" if i == selected else " "
        style = "bold fg:ansicyan" if i == selected else ""
        words = [*label.format(what=scope_words(tool)).split(), f" ({KEYS[key]})"]
        out.append((style, "\n".join(wrap_items(words, width - 6, " ", first=f" {mark} {i + 1}. ", rest=" " * 6)) + "\n"))
    out.append(("fg:ansibrightblack", "\n".join(wrap_items((HELD_WAITING if held else WAITING).split(" · "), width, " · "))))
    if note:
        out.append(("fg:ansiyellow", "\n" + "\n".join(wrap_items(note.split(" · "), width, " · "))))
    return out


def wrap_items(items: Sequence[str], width: int, sep: str, first: str = "", rest: str = "") -> list[str]:
    """`items` joined by `sep` in lines of at most `width` characters after the prefix (`first`
    on the first line, `rest` on the others), breaking between items; an item longer than a line
    starts one of its own and is broken between its words (the window's own wrapping cut it at the
    edge, its next line beginning with a space: ' each run is asked')."""
    lines: list[str] = []
    line = ""
    for item in items:
        joined = f"{line}{sep}{item}" if line else item
        if line and len(joined) > width:
            lines.append(line)
            line = item.lstrip()
        else:
            line = joined
        if len(line) > width:  # one item alone, too long: its last words go on with the next items
            *whole, line = cells.wrap(line, width, fold=False)
            lines += whole
    lines.append(line)
    return [(first if n == 0 else rest) + text for n, text in enumerate(lines)]


def run_menu(tool: str, inp: Any = None, output: Any = None, held: bool = False,
             clock: Callable[[], float] = time.monotonic) -> str:
    """Show the menu and return "once", "always", "instead" (no, with an instruction: `instruction`),
    "deny" (Esc, Ctrl-D: just no) or "interrupt" (Ctrl-C). An Enter typed right after `n` (or 3)
    goes with it (answer_enter.py): it said "just no" to the line asking what to do instead. After
    `y` or `a` the menu ends at once: the turn goes on, and what is typed next is the turn's
    (an Esc or Ctrl-C stops it), but for the rest of their word (`yes⏎`: answer_enter.typed_on)."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.layout import FormattedTextControl

    state, choices = {"selected": 0}, HELD_CHOICES if held else CHOICES  # held: "No" first, selected
    kb, given, note, ended_on, typing = KeyBindings(), AnswerEnter[str](), [""], [""], TypingGuard(clock)

    def typed(event: KeyPressEvent) -> bool:  # an answer's key in a word typed into the menu (menu_typing.py)
        if typing.taken(event):
            note[0] = TYPING_NOTE
            return True
        return False

    def pick(answer: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            if answer not in ("deny", "interrupt") and typed(event):
                return
            picked = [i for i, c in enumerate(choices) if c[0] == answer]
            if not picked:  # Esc, Ctrl-C, Ctrl-D: no Enter follows them
                event.app.exit(result=answer)
                return
            state["selected"] = picked[0]
            if answer != "instead":  # the turn goes on at once: keys typed next are its own (Esc stops it)
                ended_on[0] = event.data  # but for the rest of the word it begins (`yes`)
                event.app.exit(result=answer)
                return
            given.give(event, answer)  # shown while it waits for an Enter meant for this answer
        return handler

    for key, answer in [*((key, answer) for answer, key, _ in choices if key != "escape"), *ALSO.items()]:
        kb.add(key)(pick(answer))  # Esc (the held menu's "No") is bound below, at both menus
        kb.add(key.upper())(pick(answer))
    for i, (answer, _, _) in enumerate(choices):
        kb.add(str(i + 1))(pick(answer))
    if held:  # `a`, "always" at the usual menu, allows nothing here: said, and the menu waits
        for key in ("a", "A"):
            kb.add(key)(lambda event: typed(event) or note.__setitem__(0, HELD_NO_ALWAYS))
    @kb.add(Keys.Any)
    def _typing(event: KeyPressEvent) -> None:  # a key no choice takes
        typing.typed(event)
        note[0] = TYPING_NOTE
    kb.add("escape", eager=True)(pick("deny"))
    kb.add("c-c")(pick("interrupt"))
    kb.add("c-d")(pick("deny"))

    @kb.add("up")
    @kb.add("k")
    def _up(event: KeyPressEvent) -> None:
        if event.data != "k" or not typed(event):
            state["selected"] = (state["selected"] - 1) % len(choices)

    @kb.add("down")
    @kb.add("j")
    @kb.add("tab")
    def _down(event: KeyPressEvent) -> None:
        if event.data != "j" or not typed(event):
            state["selected"] = (state["selected"] + 1) % len(choices)

    @kb.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        if not typed(event):
            event.app.exit(result=choices[state["selected"]][0])

    def lines() -> StyleAndTextTuples:
        from prompt_toolkit.application import get_app

        return menu_lines(tool, state["selected"], get_app().output.get_size().columns, held, note[0])

    control = FormattedTextControl(lines, focusable=True, show_cursor=False)
    app: Application[str] = inline_app(control, given.bindings(kb), inp, output)
    picked = app.run(in_thread=True) or "deny"
    typed_on(app.input, ended_on[0], clock())
    typing.give_back(app.input)
    return picked


def instruction(inp: Any = None, output: Any = None, clock: Callable[[], float] = time.monotonic,
                say: Callable[[str], object] = print) -> str:
    """The line the user types after "No, and tell the model what to do instead"; "" for Enter alone,
    Esc or Ctrl-D (just no). Ctrl-C stops the turn, as at the menu. Run in its own thread, as the menu.
    A large paste shows as its placeholder (`[pasted 240 lines]`), as at the prompt, and stays so on
    the screen after Enter; the answer has it whole. Shown whole, it filled the screen. A paste that
    comes as keys (no bracketed paste) keeps its line breaks, as at the prompt (paste_keys.py, by
    `clock`): its first one sent its first line alone, the rest going on to the prompt as a message.
    A slash command is not words for the model (typed_answer.not_words): `/exit` raises LeaveAsked,
    any other is said not to be run here (`say`), and the line is asked again."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.application import get_app
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

    from .paste_keys import PasteKeys
    from .pastes import Pastes
    from .prompt_input import guard_placeholders, paste_binding

    kb, pastes, paste_keys = KeyBindings(), Pastes(), PasteKeys(clock)
    paste_binding(kb, pastes)

    @kb.add("escape", eager=True)
    def _no(event: KeyPressEvent) -> None:
        event.app.exit(result="")

    @kb.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        if not paste_keys.line_break(event):
            event.current_buffer.validate_and_handle()

    io = {k: v for k, v in (("input", inp), ("output", output)) if v is not None}
    session: PromptSession[str] = PromptSession(key_bindings=kb, multiline=True, prompt_continuation="    ", **io)
    paste_keys.watch(session.app)
    guard_placeholders(session, pastes)
    try:
        while True:
            shown = session.prompt(lambda: instead_prompt(get_app().output.get_size().columns), in_thread=True) or ""
            if (note := not_words(shown)) is None:
                return pastes.expand(shown).strip()
            say(note)  # and asked again
    except KeyboardInterrupt:
        raise asyncio.CancelledError from None  # the turn ends as interrupted, the REPL goes on
    except EOFError:
        return ""


async def yes_no(question: str, inp: Any = None, output: Any = None) -> bool:
    """A yes/no question answered by one key, as the menu is: y = yes; n, Enter, Esc, Ctrl-C, Ctrl-D
    and any other key that types a character = no (`[y/N]`: only a `y` says yes). Other keys were
    ignored: a line typed ahead, 'TYPED-MSG-5', answered the `y` in it, and rewrote the session. An
    Enter typed right after `y` or `n` goes with it (answer_enter.py): after `/rewind N`'s `y` it sent
    the prompt given back, and the turn undone ran again. Run on the REPL's loop (the command that
    asks is a coroutine, unlike a tool). Where the approval question is typed (`typed_only`), so is
    this one: a dumb terminal printed its drawing's escape sequences around the question."""
    if typed_only(output):
        from .render import make_console

        console = make_console()
        said = typed_line(console, question_lines(question, console.width))
        return (said or "").strip().lower() in ("y", "yes")
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import FormattedTextControl

    kb, given = KeyBindings(), AnswerEnter[bool]()

    def answer(yes: bool, waits: bool = False) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            if waits:  # the keys the question names, which an Enter may follow
                given.give(event, yes)
            else:
                event.app.exit(result=yes)
        return handler

    for key in ("y", "Y"):
        kb.add(key)(answer(True, waits=True))
    for key in ("n", "N"):
        kb.add(key)(answer(False, waits=True))
    for key in ("enter", "c-c", "c-d"):
        kb.add(key)(answer(False))
    kb.add("escape", eager=True)(answer(False))
    kb.add("<any>")(lambda event: given.give(event, False, any_word=True) if event.data.isprintable() and event.data
                    else None)  # no, and what is typed on with it up to its Enter (`sure⏎`): not a message

    def text() -> StyleAndTextTuples:
        from prompt_toolkit.application import get_app

        shown = ("y" if given.answer else "n") if given.answered else ""  # while it waits for an Enter
        return [("", question_lines(question, get_app().output.get_size().columns) + shown)]

    control = FormattedTextControl(text, focusable=True, show_cursor=True)
    app: Application[bool] = inline_app(control, given.bindings(kb), inp, output)
    # SIGINT stays the command's (work_keys.py): the keys read raw bring a Ctrl-C as a key, and an
    # application handling SIGINT took the loop's handler away and put back its own idea of the old
    # one, so a Ctrl-C after the answer stopped nothing and the handler stayed past the command
    with typed_before(inp):  # a key typed before the question was up is not its answer
        return bool(await app.run_async(handle_sigint=False))


def instead_prompt(width: int) -> str:
    """The line asking what to do instead, broken between words for a terminal of `width` columns
    (at 40 the terminal cut it at its edge: '(Ent' / 'er alone'); what is typed goes after its `›`."""
    lines = cells.wrap(INSTEAD_PROMPT.strip(), max(20, width - 3), indent="  ")
    return "\n".join(["  " + lines[0], *lines[1:]]) + " "


def question_lines(question: str, width: int) -> str:
    """`question` broken between its words for a terminal of `width` columns, room kept after it
    for the answer (`y` or `n`), which the REPL prints after it, laid out the same, once it is
    answered: the window's own wrapping cut the question anywhere while it waited, 'the f' /
    'iles changed' at 100 columns, and the answer printed after it could go to a line of its own.
    The space after `[y/N]` stays, for the cursor."""
    # the last word wrapped with two cells more (the space and the answer), so that they go with it;
    # the last column left: a terminal may wrap there by itself
    lines = cells.wrap(question.rstrip() + "..", max(20, width - 1))
    return "\n".join(lines)[:-2] + " "


def inline_app(control: Any, kb: Any, inp: Any = None, output: Any = None) -> Any:
    """A one-window prompt_toolkit application below the output (not full screen), erased when it
    is answered: the approval menu and the yes/no questions. `inp`/`output`: a test's pipe."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.layout import HSplit, Layout, Window

    io: dict[str, Any] = {}
    if inp is not None:
        io["input"] = inp
    if output is not None:
        io["output"] = output
    return Application(layout=Layout(HSplit([Window(control, wrap_lines=True)])), key_bindings=kb,
                       full_screen=False, erase_when_done=True, **io)


def make_ask(console: Console, paused: Callable[[], contextlib.AbstractContextManager[Any]],
             stream: TextIO | None = None, use_menu: bool = False, inp: Any = None,
             output: Any = None, clock: Callable[[], float] = time.monotonic) -> AskFn:
    """The `ask` the permission checker calls. `paused()` stops the spinner for as long as the
    question is up, and what it yields hands the terminal to the question (cooked mode, no key
    reader) once it is laid out: keys typed before then are typed ahead, not an answer
    (`InterruptKeys.hand_over`). `clock`, the REPL's, tells the keys of a paste from typing
    (paste_keys.py). A dumb terminal (TERM=dumb: an editor's shell buffer) gets the typed
    question (`typed_only`): the menu is drawn with escape sequences, which it prints as they are.
    A bash line the deny rules cannot read (`held`, permissions.AskFn) is asked with why, under the
    header; the answer offers no "always", and no is its default. A line the --allowed-tools rules
    did not cover is asked with why (`why`), as print mode's refusal says it."""
    use_menu = use_menu and not typed_only(output)

    def ask(tool: str, detail: str, held: str | None = None, why: str | None = None) -> Answer | Instead:
        with paused() as hand_over:
            what, body = "run", detail
            if tool != "bash":  # "edit a.py\n<diff>": the header says what, the body shows the diff
                what, _, body = detail.partition("\n")
            console.print(Text.assemble("  ⎿ ", (tool, "bold"), f" wants to {what}:"))
            if held is not None:  # why no deny rule can vouch for it, before the line itself
                body = f"{INSTRUCTION_MARK} {held}; say yes only if you have read what it runs\n{body}"
            elif why is not None:  # why the --allowed-tools rules did not cover it, as print mode says
                body = f"{INSTRUCTION_MARK} {why}\n{body}"
            if body.startswith(INSTRUCTION_MARK):  # a file later sessions obey: said apart from the diff
                warning, _, body = body.partition("\n")  # wrapped under its own words, as the diff is
                lines = cells.wrap(visible(warning), max(20, console.width - 6), indent="  ")
                console.print(Text("\n".join("    " + line for line in lines), style="bold yellow"), soft_wrap=True)
            body = shown_whole(tool, body)
            # A lone \r (or any control character) is shown as its escape, not taken as a line
            # break: "rm -rf ~ #\rls" must not read as two lines of which the second is harmless.
            body = visible(body.replace("\r\n", "\n"))
            console.print(hanging(body, console), highlight=False, soft_wrap=True)
            answer: Answer | Instead
            if callable(hand_over) and not hand_over():  # Esc or Ctrl-C typed before it was up
                raise asyncio.CancelledError  # the turn ends as interrupted, as Ctrl-C at the menu does
            if use_menu:
                with typed_before(inp):  # keys left by an earlier screen: never this question's answer
                    picked = run_menu(tool, inp, output, held is not None, clock)
                    if picked == "interrupt":
                        raise asyncio.CancelledError  # the turn ends as interrupted, the REPL goes on
                    text = instruction(inp, output, clock, lambda note: said(console, note)) if picked == "instead" else ""
                answer = Instead(text) if text else "deny" if picked == "instead" else _menu_answer(picked)
            else:
                answer = typed_answer(console, tool, stream, held is not None)
            # Declined with the user's words: the call's result line, printed right after, says it
            # (`⎿ declined; the model is told: …`, as /expand and /history do); said here too, it was twice.
            if not isinstance(answer, Instead):
                console.print({"once": "  allowed once", "always": f"  allowed for {scope_words(tool)} this session",
                               "deny": "  declined"}[answer], style="dim" if answer != "deny" else "yellow")
        return answer

    return ask


def said(console: Console, note: str) -> None:
    """A note under the line asking what to do instead, broken between words under its own text."""
    lines = cells.wrap(note, max(20, console.width - 3), indent="  ")
    console.print(Text("\n".join("  " + line for line in lines), style="yellow"), soft_wrap=True)


def _menu_answer(picked: str) -> Answer:
    return "once" if picked == "once" else "always" if picked == "always" else "deny"


@contextlib.contextmanager
def nothing() -> Iterator[None]:
    yield
