"""`!cmd` in the REPL: run a shell command yourself and hand its output to the next message.

The user typed the command, so it needs no approval; it runs like the bash tool does (working
directory, no provider key in its environment, output capped, a timeout that kills its process
group). Its output is not cut to the bash tool's cap: up to `OUTPUT_MAX_CHARS` go with the next
message, where what is larger than a request goes whole to a file the model can read
(`AgentSession.fit_input`); the terminal shows the head and tail. The output is not sent on its
own: it goes in front of the next message, so the model sees it exactly when the user asks about
it and the conversation stays a valid request/response chain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

from ..shell_message import SHELL_HEAD
from ..words import plural

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession


OUTPUT_MAX_CHARS = 2_000_000
"""What one `!cmd` hands to the next message at most (head and tail kept past it; the capture
holds at most four bytes a character of each, 16 MB)."""
SHOWN_MAX_CHARS = 20_000
"""What the terminal shows of one `!cmd`'s output: its head and tail."""


async def shell_output(session: AgentSession, command: str) -> str:
    """Run `command` as the bash tool would (without asking: the user typed it); its output."""
    from ..agent.safety.permissions import Permissions
    from ..agent.tools.base import ToolEnv
    from ..agent.tools.shell import bash_impl

    env = ToolEnv(session.cwd, session.settings, session.read_state, Permissions(session.cwd, "yes"))
    return str(await bash_impl(env, command, max_chars=OUTPUT_MAX_CHARS))


def shown_ends(out: str) -> tuple[str, str]:
    """The head and the tail of `out` the terminal shows, each at most half of `SHOWN_MAX_CHARS`,
    cut at line ends where a line ends near enough: cut at a character, a line of numbers showed
    as `22`, the marker, then `03`. A single line that long is cut where it must be."""
    half = SHOWN_MAX_CHARS // 2
    head, tail = out[:half], out[-half:]
    if (end := head.rfind("\n")) >= half // 2:
        head = head[:end + 1]
    if 0 <= (start := tail.find("\n")) < half // 2:
        tail = tail[start + 1:]
    return head, tail




def show_shell_output(console: Console, command: str, out: str) -> str:
    """Print the output (its head and tail when long); return the text to put before the next message."""
    from ..agent.tools.shell import cut_from

    if len(out) > SHOWN_MAX_CHARS:
        head, tail = shown_ends(out)
        left = out[len(head):len(out) - len(tail)]
        lines = left.count("\n") + (0 if left.endswith("\n") else 1)
        console.print(head.removesuffix("\n"), markup=False, highlight=False)
        whole = head.endswith("\n") and left.endswith("\n")  # the ends cut at lines: so many lines left out
        console.print(f"[… {plural(len(left), 'character', grouped=True)} not shown here"
                      f"{f': {lines:,} line' + ('s' if lines != 1 else '') if whole else ''} …]", style="dim", markup=False)
        console.print(tail, markup=False, highlight=False)
        cut = cut_from(out)
        said = (f"the command printed more than {OUTPUT_MAX_CHARS:,} characters: {cut:,} were cut from the "
                f"middle; the other {len(out):,}" if cut else f"its {len(out):,} characters")
        console.print(f"({said} go with your next message; what a request cannot hold goes as a file the "
                      "model reads)", style="dim")
    else:
        console.print(out, markup=False, highlight=False)
        console.print("(the output goes with your next message)", style="dim")
    return f"{SHELL_HEAD}{command}\n{out}"
