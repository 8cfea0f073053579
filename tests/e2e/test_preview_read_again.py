"""The agent in an 8K window reads a 318-line file and a long build log, and follows what each
preview's note says, as a model does: every read it makes that way comes back whole, with the lines
it asked for, numbered once, as the file numbers them.

Before, the note of the file's read named the spilled copy with `offset=<first line>,
limit=<number of lines>`; the copy held the read's numbers (a read of it showed two columns, its line
30 the file's 58) and a read of 260 lines of it was cut to a preview again, and again. Now it names
the file itself, from the first line the preview leaves out, with a limit that fits one result; the
log's note names its copy, with a first line and a limit that fit too.
"""

from __future__ import annotations

import re

from tests.e2e.conftest import Cli
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

ADVICE = re.compile(r'Read lines ([\d,]+)-([\d,]+) (again from the file: |with )'
                    r'read_file\(path="([^"]+)", offset=(\d+), limit=(\d+)\)')
LOG = "for i in $(seq 1 400); do echo \"build step $i: compiled module_$i.o\"; done"


class Follower:
    """Reads src/core.py, then runs the build; after each result cut to a preview, reads every line
    it left out as its note says (the limit it gives, on from where each read ends)."""

    def __init__(self) -> None:
        self.todo: list[tuple[str, dict[str, object]]] = [("read_file", {"path": "src/core.py"}),
                                                          ("bash", {"command": LOG})]
        self.notes: list[str] = []
        self.follow: list[tuple[str, int, int]] = []  # (path, offset, limit) of each read the notes asked for
        self.followed: list[str] = []  # what each came back as

    def __call__(self, req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text("<summary>1. Primary Request and Intent: read src/core.py, run the build.</summary>")
        if is_notes_request(req):
            return Reply.text("")
        results = [message_text(m) for m in tool_results(req)]
        last = results[-1] if results else ""
        if self.follow and len(self.followed) < len(self.follow):
            self.followed.append(last)
        elif (found := ADVICE.search(last)) is not None:
            self.notes.append(last)
            end, path, at, limit = int(found.group(2).replace(",", "")), found.group(4), int(found.group(5)), int(found.group(6))
            self.follow += [(path, offset, limit) for offset in range(at, end + 1, limit)]
        if len(self.follow) > len(self.followed):
            path, offset, limit = self.follow[len(self.followed)]
            return Reply.tools([("read_file", {"path": path, "offset": offset, "limit": limit})])
        if self.todo:
            return Reply.tools([self.todo.pop(0)])
        return Reply.text("DONE")


def test_reads_that_follow_the_previews_get_the_lines_whole_and_numbered_once(cli: Cli) -> None:
    lines = ['"""Module core: part of the demo project."""']
    for k in range(45):
        lines += ["", f"def core_func_{k}(x, y=0):", f'    """Compute core value {k} from x and y; see docs for core."""',
                  f"    total = x * {k} + y  # step {k}", f"    if total > {k * 37 % 1000}:",
                  f"        return total - {k % 50}", "    return total"]
    (cli.cwd / "src").mkdir()
    (cli.cwd / "src" / "core.py").write_text("\n".join(lines) + "\n")
    log = [f"build step {i}: compiled module_{i}.o" for i in range(1, 401)] + ["exit code: 0"]  # as bash says it
    model = Follower()
    with FakeOpenAIServer(model, window=8_000, model="local", overflow="llama.cpp") as server:
        run = cli("-p", "read src/core.py, then run the build", "-m", "local", "--base-url", server.base_url,
                  "--api-key", "k", "--context-window", "8000", "--yes")
    assert run.code == 0 and run.stdout.strip() == "DONE", run.stderr[-2_000:]

    read_note, log_note = model.notes
    assert 'read_file(path="src/core.py", offset=' in read_note and "tool-results" not in read_note, read_note[-600:]
    assert "/tool-results/" in log_note, log_note[-600:]
    assert len(model.followed) == len(model.follow) > 4
    for (path, offset, limit), result in zip(model.follow, model.followed, strict=True):
        assert "too large for the context" not in result, result[-600:]  # shown whole
        source = lines if path == "src/core.py" else log
        wanted = source[offset - 1:offset - 1 + limit]
        body = result.split("\n")[1:] if result.startswith("[") else result.split("\n")
        assert body == [f"{n:>6}\t{line}" for n, line in enumerate(wanted, offset)], result[:400]
    # every line each preview left out was read, from the first on
    for note, ours in ((read_note, "src/core.py"), (log_note, None)):
        found = ADVICE.search(note)
        assert found is not None
        first, end = int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))
        reads = [(offset, limit) for path, offset, limit in model.follow if (path == "src/core.py") == bool(ours)]
        assert reads[0][0] == first and reads[-1][0] + reads[-1][1] - 1 >= end, (reads, first, end)
    assert not server.rejected
