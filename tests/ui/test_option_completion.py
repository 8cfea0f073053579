"""Tab completes a slash command's options, also after words (`/compact keep the tests --pre` +
Tab: `--preview`): it offered nothing there, and `--up-to`, `--resume-auto` or `/model`'s
`--window` had to be looked up in /help and typed whole."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from compact_agent.ui.command_registry import COMMANDS
from compact_agent.ui.commands import dispatch  # noqa: F401 - every command registered
from compact_agent.ui.prompt_input import ReplCompleter, command_arguments
from compact_agent.ui.tab_values import OPTIONS
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal


def offered(comp: ReplCompleter, line: str) -> list[str]:
    found = comp.get_completions(Document(line), CompleteEvent(completion_requested=True))
    return [line[: len(line) + c.start_position] + c.text for c in found]


def test_tab_offers_the_options_of_compact_and_model(tmp_path: Path) -> None:
    comp = ReplCompleter(["compact", "model", "status"], tmp_path, command_arguments(tmp_path))
    assert offered(comp, "/compact --pre") == ["/compact --preview"]
    assert offered(comp, "/compact keep the tests --pre") == ["/compact keep the tests --preview"]
    assert offered(comp, "/compact --") == ["/compact --preview", "/compact --from", "/compact --up-to",
                                            "/compact --resume-auto"]
    assert offered(comp, "/compact --r") == ["/compact --resume-auto"]
    assert offered(comp, "/model deepseek-chat --w") == ["/model deepseek-chat --window"]
    assert offered(comp, "/model --w") == ["/model --window"]
    assert offered(comp, "/compact --bogus") == [] and offered(comp, "/compact --preview") == []
    assert offered(comp, "/status --") == []  # a command without options offers none
    assert offered(comp, "tell me about --pre") == []  # a message is no command


def test_the_options_offered_are_the_ones_help_names() -> None:
    for name, opts in OPTIONS.items():
        for option, _ in opts:
            assert option in COMMANDS[name].help, (name, option)


def test_tab_completes_an_option_in_the_terminal(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        term = Terminal(tmp_path, server.base_url)
        try:
            at = term.prompt(term.read_until("/help for commands"))
            term.type("/help\r")
            at = term.prompt(term.read_until("Tab completes paths, commands and their options", at))  # /help says so
            term.type("/compact --pre")
            term.read_until("--pre", at)
            after = term.type("\t")
            term.read_until("view", after)
            term.type("\x15")  # the line emptied: Ctrl-D leaves
            assert term.finish() == 0
        finally:
            term.close()
