"""What the user is told of a file later sessions obey (an instruction file, a custom command's file)
that the model writes: the line of the question that says so, and the note where nobody was asked.
permissions.py decides; these are its words."""

from __future__ import annotations

INSTRUCTION_MARK = "⚠"
"""Begins the line of the question that says the file is an instruction file (ui/approval.py shows it apart)."""
INSTRUCTION_FILE = "is an instruction file: later sessions read it into their system prompt and follow it as instructions"
"""Said of a file the model wants to write that later sessions obey (`instruction_file`), in the
question and in the note where none was asked (`changed_note`)."""
COMMAND_FILE = "is the file of the custom command /{name}: typing /{name} sends what it says as your own message"
"""Said instead of a project's custom command file (instructions.command_of)."""


def changed_note(tool: str, file: str, why: str | None, command: str | None = None) -> str:
    """What the user is told when the model wrote or edited an instruction file and nobody was asked
    (`why`: `--yes`, a tool allowed whole, an earlier "always"), or a `bash` command it ran changed
    one (asked or not: the question showed a command, not what it writes): text injected into what
    the model read (a hostile file, a web page) would otherwise persist, unseen, as every later
    session's rules. `command`: the file is that custom command's (`COMMAND_FILE`), whose text
    goes out as the user's own words when they type it."""
    done = (f"a bash command the model ran changed {file}" if tool == "bash" else
            f"the model {'wrote' if tool == 'write_file' else 'edited'} {file} without asking ({why})")
    if command is not None:
        return (f"{done}; it is the file of the custom command /{command}, whose text goes out as your own "
                f"message when you type /{command}: check what it says before you do")
    return (f"{done}; it is an instruction file, which later sessions read into their system prompt and follow "
            "as instructions: check what it says before the next one")
