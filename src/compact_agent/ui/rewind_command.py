"""/rewind: the checkpoints of the session's turns listed, or the files and the conversation put back
to before one of them (agent/tools/checkpoints.py keeps them, agent/run/rewinding.py rewinds).

    /rewind        each checkpoint: its prompt, the files it would restore, versions pruned
    /rewind N      back to before turn N (the REPL asks first; print mode only with --yes)

The prompt of the turn rewound to comes back in the REPL's input, to edit and send again (not when
the conversation could not go back before it: it still holds it; nor in a dumb terminal, whose input
does not show it). With no checkpoint it says why: a
rewind took the last ones, an earlier version dropped them at a compaction, no message has been sent
yet, or none can be kept (something else stands where they go).
"""

from __future__ import annotations

from rich.console import Console

from .. import secrets
from ..agent.run.rewinding import FilesNotRestored, indexed_by, shown_path
from ..agent.run.runner import AgentSession
from ..agent.tools.checkpoint_retention import moved_words, names
from ..shell_message import SHELL_HEAD
from ..words import plural
from . import render
from .command_registry import CommandError, RunningRepl, command, current_repl
from .rewound_prompt import shell_output_of


@command("rewind", "restore files and conversation to before turn N: /rewind [N]")
async def _rewind(s: AgentSession, args: str, c: Console) -> None:
    cps = s.checkpoints.list()
    if args.strip() and not args.strip().isdigit():
        raise CommandError("usage: /rewind N (a number from /rewind)")
    if not cps:
        none = _why_no_checkpoints(s)
        if args.strip():  # asked for one: a refusal
            raise CommandError(none)
        c.print(none, soft_wrap=True, markup=False, highlight=False)  # a path in it whole, as written
        return
    repl = current_repl()
    # as shown when sent where the REPL knows it (a paste as its placeholder, a custom command as
    # typed): the preview is a log's first words, the question typed under it out of sight
    shown = {cp.index: repl.shown_prompt(cp) for cp in cps} if repl is not None else {}
    prompts = {cp.index: secrets.redact(shown.get(cp.index) or cp.prompt) for cp in cps}  # what was typed may hold the key
    if not args.strip():
        for cp in cps:
            notes = ([f"{plural(len(cp.files), 'file')} to restore"] if cp.files else []) + (
                [f"{'version' if len(cp.pruned) == 1 else 'versions'} of {plural(len(cp.pruned), 'file')} pruned"] if cp.pruned else []) + (
                ["before a compaction"] if cp.archive is not None else [])
            said = f"  ({'; '.join(notes)})" if notes else ""
            c.print(f"  {cp.index:>3}  › {render.clip_words(prompts[cp.index], max(20, c.width - 10 - len(said)))}{said}",
                    markup=False)  # what was typed, not markup ('x[i]' lost its '[i]')
        c.print("/rewind N goes back to before turn N" + (
            "; to one before a compaction, the conversation comes back from the transcript it archived"
            if cps[0].archive is not None else ""))
        return
    n = int(args.strip())
    target = next((x for x in cps if x.index == n), None)
    if target is None:
        raise CommandError(s.checkpoints.missing(n))
    if repl is None and s.permissions.mode == "deny":  # print mode asks nothing: files change only with --yes
        raise CommandError(f"/rewind {n} restores files, and print mode does not ask: add --yes to rewind")
    if repl is not None:
        later = len(s.messages) - target.history_len
        goes = (f"{plural(later, 'message')} and the files changed since go back" if target.archive is None else
                "the files changed since go back, and the conversation as it was before it (a compaction since "
                "is undone)")
        changed = s.checkpoints.changed(n)  # their versions are kept, which the question says
        kept = (f"; changed by hand or by a command since the agent wrote {'it' if len(changed) == 1 else 'them'}: "
                f"{names([shown_path(p, s.cwd) for p in changed])} (the version replaced is kept in the session's folder)"
                if changed else "")
        found = _standing(s, n)
        if not await repl.confirm(f"rewind to before “{render.clip_words(prompts[n], 60)}”? "
                                  f"{goes}; the plan of those turns too{kept}{found} [y/N] "):
            c.print("nothing rewound")
            return
    # What the checkpoint indexes, before the conversation is cut: for one before a compaction, its archive.
    indexed = indexed_by(target, s.messages, s.store.archives()) if repl is not None else None
    given = repl.prompt_back(target, indexed) if repl is not None else ""
    shell = shell_output_of(target, indexed) if repl is not None else None
    shows = repl is not None and _input_shows(repl)
    try:
        back = s.rewind(n)
    except FilesNotRestored as e:  # the conversation went back all the same: its prompt comes back too
        if repl is None:
            raise
        if repl.keys is not None:  # still in the conversation: Enter would send it twice
            repl.keys.typed = given if e.went_back and shows else ""
        raise e.then(BACK if e.went_back and shows else UNSEEN if e.went_back else
                     "so the prompt is not put back in the input") from e.__cause__
    # "restored 0 files" read as if some were missing: none changed since, or (`lost`) none could be put back
    files = (f"restored {plural(len(back.restored), 'file')}" if back.restored else
             "no files restored" if back.lost or s.checkpoints.passed or s.checkpoints.raced else "no files to restore")
    given = given if back.went_back and shows else ""  # still in the conversation: Enter would send it twice
    c.print(f"rewound; {files}"
            + ((f"; {BACK}" if shows else f"; {UNSEEN}") if repl is not None and back.went_back else "")
            + (f"; {back.conversation}" if back.conversation else "")
            + ("; so the prompt is not put back in the input" if repl is not None and not back.went_back else ""))
    if back.archive is not None:  # on a line of its own, never split by us (as /history shows it)
        render.path_line(c, back.archive, style="dim")
    if back.kept_in is not None:  # changed since the agent wrote them: not lost, and said where
        one = len(back.kept) == 1
        c.print(f"{plural(len(back.kept), 'file')} changed since the agent wrote {'it' if one else 'them'} (by hand "
                f"or by a command): {names(back.kept)}; the {'version' if one else 'versions'} the rewind replaced "
                f"{'is' if one else 'are'} kept in", style="yellow", markup=False, highlight=False)
        render.path_line(c, back.kept_in, style="dim")
    if s.checkpoints.passed:  # found as the files were put back, whatever the question said
        one = len(s.checkpoints.passed) == 1
        c.print(f"not put back as {'it was' if one else 'they were'}: "
                f"{names([shown_path(p, s.cwd) for p in s.checkpoints.passed])} ({'a folder stands' if one else 'folders stand'} "
                f"there now, left as {'it is' if one else 'they are'})", style="yellow", markup=False, highlight=False)
    if s.checkpoints.raced:  # changed after the versions to keep were copied: not replaced, nor lost
        one = len(s.checkpoints.raced) == 1
        c.print(f"not put back as {'it was' if one else 'they were'}: "
                f"{names([shown_path(p, s.cwd) for p in s.checkpoints.raced])} (changed as the rewind ran, by hand or "
                f"by a command: left as {'it is' if one else 'they are'})", style="yellow", markup=False, highlight=False)
    if back.lost:  # versions pruned (or deleted): those files stay as they are
        c.print(back.lost, style="yellow", markup=False, highlight=False)
    if repl is not None and shell is not None:  # what `!cmd` printed goes with it again, as it went
        repl.pending.insert(0, shell)
        commands = [b.split("\n", 1)[0] for b in shell.split(SHELL_HEAD)[1:]]
        c.print(f"  ⎿ the output of {', '.join('!' + x for x in commands)} goes with it again", style="dim",
                markup=False, highlight=False)
    if repl is not None and repl.keys is not None:
        repl.keys.typed = given  # as shown when sent: a large paste as its placeholder



BACK = "the prompt is back in the input to edit"
UNSEEN = "the prompt is not put back in the input, which a dumb terminal (TERM=dumb) does not show"


def _standing(s: AgentSession, n: int) -> str:
    """What the question adds of what stands where the rewind puts files back, other than the
    file the agent left or the user changed (`Checkpoints.standing`): each '; ...', or ''."""
    said = []
    for kind, paths in s.checkpoints.standing(n).items():
        them, one = names([shown_path(p, s.cwd) for p in paths]), len(paths) == 1
        if paths and kind == "folder":
            said.append(f"{'a folder stands' if one else 'folders stand'} where {them} {'was' if one else 'were'}: "
                        f"left as {'it is' if one else 'they are'} (answer n and move {'it' if one else 'them'} away "
                        f"first to have the {'file' if one else 'files'} as before)")
        elif paths and kind == "link":
            said.append(f"{'a link stands' if one else 'links stand'} where {them} {'was' if one else 'were'}: "
                        f"{'it is' if one else 'each is'} replaced by the file put back (what {'it leads' if one else 'they lead'} "
                        "to does not change)")
        elif paths:
            said.append(f"deleted since the agent wrote {'it' if one else 'them'}: {them} "
                        f"({'it is' if one else 'they are'} put back)")
    if fenced := s.checkpoints.fenced(n):  # a link out put where a file was, say: the line after says it too
        said.append(f"left as {'it is' if len(fenced) == 1 else 'they are'}, outside the working directory or where "
                    f"the file tools may not write: {names([shown_path(p, s.cwd) for p in fenced])}")
    if moved := s.checkpoints.moved(n):  # named by the project's path before a move: the line after says it too
        said.append(moved_words([shown_path(p, s.cwd) for p in moved]))
    return "".join(f"; {x}" for x in said)


def _input_shows(repl: RunningRepl) -> bool:
    """Whether the REPL's input shows the prompt put back in it: a dumb terminal's (TERM=dumb) is
    plain text that shows only what is typed, and a prompt put back there went unseen in front of
    what was typed next (`/exit` was sent to the model as `second question/exit`)."""
    from prompt_toolkit.utils import is_dumb_terminal

    keys = repl.keys
    return keys is None or not is_dumb_terminal(getattr(keys.output, "term", None) or "xterm")


def _why_no_checkpoints(s: AgentSession) -> str:
    """Why `/rewind` has nothing to go back to, from what happened last: a rewind took the last
    ones, a compaction dropped them, or no message has been sent yet; or none can be kept."""
    from .history_view import all_boundaries, compactions

    if s.checkpoints.off is not None:  # each message sent makes none
        return f"no checkpoints: they are off for this session ({s.checkpoints.off})"
    boundaries = all_boundaries(s.store)
    if boundaries and boundaries[-1].strategy == "rewind":
        return "no checkpoints left: all of them were rewound; each message you send makes a new one"
    if compactions(boundaries):  # a prompt cut to the window, an edited history: they drop none
        # Only an earlier version did: checkpoints now outlive a compaction (they point into its archive).
        return ("no checkpoints: an earlier version dropped them at a compaction; each message you send makes "
                "a new one")
    return "no checkpoints yet: each message you send makes one"
