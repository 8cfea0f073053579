"""`!cmd` in the REPL: run a shell command yourself and hand its output to the next message.

The user typed the command, so it needs no approval; it runs like the bash tool does (working
directory, no provider key in its environment, output capped, a timeout that kills its process
group). Its output is not sent on its own: it goes in front of the next message, so the model sees
it exactly when the user asks about it and the conversation stays a valid request/response chain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession


async def shell_output(session: AgentSession, command: str) -> str:
    """Run `command` as the bash tool would (without asking: the user typed it); its output."""
    from ..agent.safety.permissions import Permissions
    from ..agent.tools.base import ToolEnv
    from ..agent.tools.shell import bash_impl

    env = ToolEnv(session.cwd, session.settings, session.read_state, Permissions(session.cwd, "yes"))
    return str(await bash_impl(env, command))


def show_shell_output(console: Console, command: str, out: str) -> str:
    """Print the output; return the text to put before the next message."""
    console.print(out, markup=False, highlight=False)
    console.print("(the output goes with your next message)", style="dim")
    return f"I ran this shell command myself:\n$ {command}\n{out}"
