"""A read_file result too large for a small window: its preview sends the model back to the file.

In an 8K window a read of a 318-line file was cut to a preview whose note named the spilled copy:
`read_file(path=".../tool-results/call_1.txt", offset=<first line>, limit=<number of lines>)`. The
copy held the read's own numbers, so reading it showed two columns of them (and a read of that
read three), its line 30 was line 58 of the file, and the note said nothing of how many lines fit:
each read the model made of it was cut to a preview again. Now the note of a read the agent can
make again names the file itself, from the first line it leaves out, with a `limit` that fits;
the copies of other results (a command's output, a file changed since) hold numbered lines
without their numbers, and their note names a first line and a `limit` that fits too.

Each test follows the note as the model would, with the agent's own reader (`view_text`), and
hands what that read returns to the layer again: shown whole, the lines it asked for, numbered once.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ToolReturnPart

from compact_agent.agent.tools.files import view_text
from compact_agent.config import Settings
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.layers.previews import OWN_TOOLS, Tools
from tests.context.strategies import Conv, budget_for

THRESHOLD = 4_000  # a room of 16,000 characters: one result may take 4,000 (about 100 lines of this file)
ADVICE = re.compile(r'Read lines ([\d,]+)-([\d,]+) (again from the file: |with )'
                    r'read_file\(path="([^"]+)", offset=(\d+), limit=(\d+)\)')
SETTINGS = Settings()


def source(root: Path) -> Path:
    """A module of 318 lines of uneven length (a long docstring every seventh line)."""
    lines = ['"""Module core."""']
    for k in range(1, 318):
        lines.append(f'    """{"Compute the core value from x and y; see the docs. " * (1 + k % 3)}"""'
                     if k % 7 == 0 else f"    total_{k} = x * {k} + y  # step {k}")
    path = root / "src" / "core.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def read(root: Path, path: str, offset: int | None = None, limit: int | None = None) -> str:
    """What the agent's read_file returns for these arguments (its lines numbered, a note in front)."""
    text = view_text(SETTINGS, root / path, path, offset, limit).text
    assert isinstance(text, str)
    return text


def layer(spill: Path, tools: Tools = OWN_TOOLS) -> ToolResultBudget:
    return ToolResultBudget(SETTINGS.compaction(), spill, tools)


def sent(budget: ToolResultBudget, conv: Conv) -> dict[str, str]:
    view = budget.apply(conv.messages, budget_for(conv.messages, conv.t, threshold=THRESHOLD)).messages
    return {p.tool_call_id: str(p.content) for m in view if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)}


def numbered_once(result: str, first: int, lines: list[str]) -> None:
    """`result` is a read's: a note in front, then `lines` numbered from `first`, once each."""
    body = result.split("\n")[1:] if result.startswith("[") else result.split("\n")
    assert body == [f"{n:>6}\t{line}" for n, line in enumerate(lines, first)], result[:300]


def test_a_read_too_large_is_sent_back_to_its_file_with_as_many_lines_as_fit(tmp_path: Path) -> None:
    root = tmp_path / "project"
    lines = source(root).read_text().splitlines()
    budget = layer(tmp_path / "spill")
    conv = Conv().user("read src/core.py").call("read_file", {"path": "src/core.py"}, read(root, "src/core.py"))
    preview = sent(budget, conv)["call_1"]
    found = ADVICE.search(preview)
    assert found is not None, preview[-500:]
    first, last, kind, path, offset, limit = found.groups()
    assert (kind, path) == ("again from the file: ", "src/core.py") and " saved to " not in preview
    assert str(tmp_path / "spill") not in preview  # the copy is kept (a shorter preview is cut from it), not named
    head = preview[:preview.index("\n\n[... ")]
    assert head.endswith(f"{int(offset) - 1:>6}\t{lines[int(offset) - 2]}\n")  # on from the head's last line
    assert int(first) == int(offset) and f"{int(last) + 1:>6}\t" in preview.split("[... ")[1]
    budget_room = budget.limits(budget_for(conv.messages, conv.t, threshold=THRESHOLD))[0]
    # followed: the lines asked for, numbered as the file numbers them, shown whole; then on from where it ends
    at, n = int(offset), int(limit)
    assert n >= 60, preview[-400:]  # most of the room (about 100 of these lines fit, a tenth spare)
    while at <= int(last):
        result = read(root, "src/core.py", at, n)
        conv.call("read_file", {"path": "src/core.py", "offset": at, "limit": n}, result)
        shown = sent(budget, conv)[f"call_{conv.n}"]
        assert shown == result and len(result) <= budget_room, shown[-300:]
        numbered_once(result, at, lines[at - 1:at - 1 + n])
        at += n
    # one line more than proposed would not have fit the room less its spare tenth
    assert len(read(root, "src/core.py", int(offset), n + 1)) > budget_room * 0.9 - 80


def test_a_commands_output_is_read_from_its_copy_lines_that_fit(tmp_path: Path) -> None:
    output = "".join(f"build step {i}: compiled module_{i}.o in {i % 13} ms\n" for i in range(1, 401))
    budget = layer(tmp_path / "spill")
    conv = Conv().user("build").call("bash", {"command": "make"}, output)
    preview = sent(budget, conv)["call_1"]
    found = ADVICE.search(preview)
    assert found is not None and found.group(3) == "with ", preview[-500:]
    path, offset, limit = found.group(4), int(found.group(5)), int(found.group(6))
    assert Path(path).parent == tmp_path / "spill" and Path(path).read_text() == output
    assert preview.startswith(output[:output.index(f"build step {offset}:")])  # the head ends before it
    result = read(Path("/"), path.lstrip("/"), offset, limit)
    conv.call("read_file", {"path": path, "offset": offset, "limit": limit}, result)
    assert sent(budget, conv)[f"call_{conv.n}"] == result  # shown whole
    numbered_once(result, offset, output.splitlines()[offset - 1:offset - 1 + limit])


def test_a_read_of_a_file_changed_beside_it_is_read_from_a_copy_numbered_once(tmp_path: Path) -> None:
    """The file was edited in the same round: the lines the model read are only in the copy, which
    holds them without the read's numbers; reading it numbers them once, as the file did. A copy
    written again after a restart (its file gone) and a shorter preview cut later keep that."""
    root = tmp_path / "project"
    lines = source(root).read_text().splitlines()
    budget = layer(tmp_path / "spill")
    conv = Conv().user("read and fix").calls(
        ("read_file", {"path": "src/core.py"}, read(root, "src/core.py")),
        ("edit_file", {"path": "./src/core.py", "old_string": "step 5", "new_string": "step five"}, "edited"))
    preview = sent(budget, conv)["call_1"]
    found = ADVICE.search(preview)
    assert found is not None and found.group(3) == "with ", preview[-500:]
    copy, offset, limit = Path(found.group(4)), int(found.group(5)), int(found.group(6))
    assert copy.read_text() == "\n".join(lines) + "\n"  # the lines, without the read's numbers
    assert "without their numbers)" in preview and "its line 1 is" not in preview  # numbered from 1 as the file
    result = read(Path("/"), str(copy).lstrip("/"), offset, limit)
    numbered_once(result, offset, lines[offset - 1:offset - 1 + limit])
    assert not re.search(r"^ *\d+\t +\d+\t", result, re.M)

    state = budget.state_to_json()
    copy.unlink()
    restarted = layer(tmp_path / "spill")
    restarted.load_state(state)
    assert sent(restarted, conv)["call_1"] == preview  # the same bytes, and the copy written again
    assert copy.read_text() == "\n".join(lines) + "\n"
    view, ids = restarted.shrink(conv.messages, 10**6, short=True)
    short = next(str(p.content) for m in view if isinstance(m, ModelRequest) for p in m.parts
                 if isinstance(p, ToolReturnPart) and p.tool_call_id == "call_1")
    assert "call_1" in ids and len(short) < len(preview)
    assert short.startswith(f"     1\t{lines[0]}\n")  # cut from the read as it was, its numbers put back


def test_a_read_from_a_later_line_saved_as_a_copy_says_where_its_lines_start(tmp_path: Path) -> None:
    root = tmp_path / "project"
    lines = source(root).read_text().splitlines()
    budget = layer(tmp_path / "spill")
    conv = Conv().user("read on").calls(
        ("read_file", {"path": "src/core.py", "offset": 30, "limit": 260}, read(root, "src/core.py", 30, 260)),
        ("write_file", {"path": "src/core.py", "content": "x = 1\n"}, "written"))
    preview = sent(budget, conv)["call_1"]
    found = ADVICE.search(preview)
    assert found is not None and "its line 1 is line 30 here" in preview, preview[-500:]
    copy, offset, limit = Path(found.group(4)), int(found.group(5)), int(found.group(6))
    assert copy.read_text() == "\n".join(lines[29:289]) + "\n"
    assert f"{offset + 29:>6}\t{lines[offset + 28]}" in read(root, "src/core.py", 30, 260)  # as the preview numbers it
    numbered_once(read(Path("/"), str(copy).lstrip("/"), offset, limit), offset, lines[29 + offset - 1:][:limit])


def test_an_agent_without_a_reader_by_lines_is_not_sent_to_the_file(tmp_path: Path) -> None:
    """The library's agent may have no read_file, or one that takes no offset: the note names no
    call it cannot make, as before."""
    root = tmp_path / "project"
    source(root)
    for tools, says in (({}, "with your file tools"), ({"read_file": frozenset({"path"})}, "with read_file.]")):
        conv = Conv().user("read").call("read_file", {"path": "src/core.py"}, read(root, "src/core.py"))
        preview = sent(layer(tmp_path / str(len(tools)), tools), conv)["call_1"]
        assert preview.endswith(says) or says in preview, preview[-300:]
        assert "offset=" not in preview.rsplit("\n", 1)[-1]


def test_a_read_shown_whole_and_saved_for_the_last_resort_is_saved_without_its_numbers(tmp_path: Path) -> None:
    """The last resort (fit.py) folds a round into a line naming where its result is saved whole:
    a read's lines saved with its numbers were numbered twice when the model read them there."""
    root = tmp_path / "project"
    lines = source(root).read_text().splitlines()
    budget = layer(tmp_path / "spill")
    conv = Conv().user("read").call("read_file", {"path": "src/core.py", "limit": 40}, read(root, "src/core.py", 1, 40))
    [part] = [p for m in conv.messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    saved = budget.saved_copy(part)
    assert saved is not None and saved.read_text() == "\n".join(lines[:40]) + "\n"


def test_a_changed_files_read_with_long_lines_reads_on_in_its_copy_from_the_lines_shown(tmp_path: Path) -> None:
    """Lines too long to read by line: the note's `tail -c` starts in the copy (the lines without
    their numbers) right after the last line the preview shows whole."""
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    (root / "data" / "wide.csv").write_text("".join(f"row {i}," + "v" * 2_500 + "\n" for i in range(8)))
    budget = layer(tmp_path / "spill")
    conv = Conv().user("read and fix").calls(
        ("read_file", {"path": "data/wide.csv"}, read(root, "data/wide.csv")),
        ("write_file", {"path": "data/wide.csv", "content": "x\n"}, "written"))
    preview = sent(budget, conv)["call_1"]
    found = re.search(r"`(tail -c \+(\d+) (\S+) \| head -c 4000)`", preview.rsplit("\n", 1)[-1])  # the note's
    assert found is not None, preview[-500:]
    copy = Path(found.group(3)).read_text()
    head = preview[:preview.index("\n\n[... ")]
    shown = [row.split("\t", 1)[1] for row in head.split("\n")[:-1]]  # the lines the head shows whole
    assert int(found.group(2)) == len("".join(line + "\n" for line in shown).encode()) + 1
    assert copy.startswith("".join(line + "\n" for line in shown))
    out = subprocess.run(["bash", "-c", found.group(1)], capture_output=True, timeout=30, check=True).stdout
    assert out == copy.encode()[int(found.group(2)) - 1:][:4_000]  # bytes: the reader's notes hold an ellipsis
