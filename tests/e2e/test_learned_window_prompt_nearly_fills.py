"""A server whose window the system prompt and the project's instruction file nearly fill, given a
larger one (`--context-window 8k` for a server started with ~3.9K, an AGENTS.md of ~2K tokens).

The first refusal teaches the window. A record of the steps would not have left the request
smaller there (the fixed part alone takes ~3.2K), so the reactive compaction was skipped, and the
run ended on "the request is too long for the server's window of 3,900 tokens and could not be
shrunk to fit it": the request was never prepared again within the window just learned, where the
last resort (previews, rounds out of the view, the newest steps folded) brings it under. The next
`-c` run, which did not keep the window learned in a run that failed, was refused again. Now the
request is sent again shrunk to fit, the run finishes, and no other request is refused."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Cli
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 3_900
ASKS = ("ASK-0: read src/mod.py and src/data.txt, then say what you found.",
        "ASK-1: read them both again and say whether anything changed.")


def project(root: Path) -> None:
    rules = "".join(f"- Rule {i}: keep functions short and test every branch you add.\n" for i in range(125))
    (root / "AGENTS.md").write_text("# Project instructions\n" + rules)  # ~8,000 characters
    (root / "src").mkdir()
    (root / "src" / "mod.py").write_text("".join(f"# line {j} of the module, lorem ipsum\n" for j in range(45)))
    (root / "src" / "data.txt").write_text("".join(f"data row {j}: alpha beta gamma delta\n" for j in range(45)))


class Model:
    """Reads the two files, one a request, then answers: as many requests for each typed message."""

    def __init__(self) -> None:
        self.steps = 0

    def __call__(self, req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text("<summary>1. Primary Request and Intent: reading two files.</summary>")
        if is_notes_request(req):
            return Reply.text("")
        self.steps += 1
        if self.steps % 3 == 0:
            return Reply.text("FOUND: two files read.")
        return Reply.tools([("read_file", {"path": "src/mod.py" if self.steps % 3 == 1 else "src/data.txt"})],
                           content="Reading the files.")


def test_a_window_learned_that_the_prompt_nearly_fills_is_worked_in_from_the_first_run(cli: Cli) -> None:
    project(cli.cwd)
    with FakeOpenAIServer(Model(), window=WINDOW, model="local") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k", "--context-window", "8k", "-y")
        first = cli("-p", ASKS[0], *at)
        assert first.code == 0, first.stderr
        assert first.stdout.strip() == "FOUND: two files read.", first.stderr
        assert "could not be shrunk" not in first.stderr
        assert "working within 3,900 from now on" in first.stderr
        assert len(server.rejected) == 1  # the refusal that taught the window, and no other
        assert "Traceback" not in first.stderr

        second = cli("-c", "-p", ASKS[1], *at)
        assert second.code == 0, second.stderr
        assert second.stdout.strip() == "FOUND: two files read.", second.stderr
        assert len(server.rejected) == 1, [body for _, _, body in server.rejected[1:]]
        sent = [r for r in server.requests[-3:] if not is_summary_request(r) and not is_notes_request(r)]
        assert sent and all(ASKS[1] in r.all_text() for r in sent)  # the newest typed message, in each
