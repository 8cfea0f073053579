"""L1 tool-result budget: spill to disk, preview, idempotence without I/O, private files."""

from __future__ import annotations

import json
import logging
import re
import stat
import subprocess
from pathlib import Path

import pytest
from pydantic_ai.messages import BinaryContent, ModelRequest, ToolReturnPart, repair_messages

from compact_agent.config import Settings
from compact_agent.context.layers import spills as spills_mod
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.layers.order import default_layers
from compact_agent.context.layers.previews import OWN_TOOLS, build_preview, spill_name
from compact_agent.context.plumbing import tokens
from tests.context.strategies import Conv, big_text, budget_for, dump
from tests.context.test_default_layers_store import FolderStore
from tests.preview_offsets import assert_reads_on_after_the_head


def returns(messages: list) -> dict[str, ToolReturnPart]:
    return {p.tool_call_id: p for m in messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)}


def with_our_tools(layer: ToolResultBudget) -> ToolResultBudget:
    """The layer as this project's agent has it: its requests list read_file, grep and bash."""
    layer.tools = OWN_TOOLS
    return layer


def run(layer: ToolResultBudget, messages: list):
    return layer.apply(messages, budget_for(messages, Conv().t))


def test_default_layers_builds_the_budget_with_the_tools_its_previews_name(tmp_path: Path) -> None:
    """The replay's requests list no tools: `default_layers(preview_tools=)` gives them to L1 as it
    is built, where the replay set the field after (replay/ours.py); given none, a preview names none."""
    conv = Conv().user("show me the log").call("bash", {"command": "cat log"}, big_text("log", 60_000)).say("ok")
    previews = []
    for given in (OWN_TOOLS, None):
        layers = default_layers(Settings().compaction(), FolderStore(tmp_path / str(bool(given))), preview_tools=given)
        [layer] = [la for la in layers if isinstance(la, ToolResultBudget)]
        previews.append(str(returns(run(layer, conv.messages).messages)["call_1"].content))
    assert "read_file(" in previews[0] and "read_file(" not in previews[1], previews


def test_big_result_is_spilled_privately_and_previewed(tmp_path: Path) -> None:
    spill = tmp_path / "spill"
    out_text = big_text("log", 60_000)
    conv = Conv().user("show me the log").call("bash", {"command": "cat log"}, out_text).say("ok")
    before = dump(conv.messages)
    result = run(with_our_tools(ToolResultBudget(Settings(), spill)), conv.messages)

    assert dump(conv.messages) == before  # the persisted history is untouched
    path = spill / "call_1.txt"
    assert path.read_text() == out_text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(spill.stat().st_mode) == 0o700
    preview = returns(result.messages)["call_1"].content
    assert isinstance(preview, str) and len(preview) < 3_000
    assert str(path) in preview and "60,000 characters" in preview and "read_file(" in preview
    head, rest = preview.split("\n\n[... ", 1)
    tail = rest.split(" characters omitted ...]\n\n", 1)[1].split("\n\n[Output too large", 1)[0]
    assert out_text.startswith(head) and head.endswith("\n") and 750 <= len(head) <= 1_000  # whole lines
    assert out_text.endswith(tail) and out_text[-len(tail) - 1] == "\n" and 750 <= len(tail) <= 1_000
    meta = returns(result.messages)["call_1"].metadata["compact_agent"]["budget"]
    assert meta == {"action": "spill", "chars": 60_000, "path": str(path)}
    assert result.tokens_freed > 10_000
    assert [(e.layer, e.action, e.ids) for e in result.events] == [("budget", "spill", ["call_1"])]
    assert dump(repair_messages(result.messages)) == dump(result.messages)


def test_reapplying_is_byte_identical_and_does_no_io(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conv = Conv().user("go").call("grep", {"pattern": "x"}, big_text("g", 80_000)).say("done")
    layer = ToolResultBudget(Settings(), tmp_path)
    first = run(layer, conv.messages)

    def no_io(*_: object) -> None:
        raise AssertionError("a remembered replacement must not touch the disk")

    monkeypatch.setattr(spills_mod, "write_private", no_io)
    second = run(layer, conv.messages)
    assert dump(second.messages) == dump(first.messages)
    assert second.events == [] and second.tokens_freed == first.tokens_freed


def test_state_survives_a_restart_with_identical_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conv = Conv().user("go").call("bash", {"command": "env"}, big_text("e", 70_000)).say("done")
    layer = ToolResultBudget(Settings(), tmp_path)
    first = run(layer, conv.messages)
    state = json.loads(json.dumps(layer.state_to_json()))

    monkeypatch.setattr(spills_mod, "write_private", lambda *_: (_ for _ in ()).throw(AssertionError("I/O")))
    restarted = ToolResultBudget(Settings(), tmp_path)
    restarted.load_state(state)
    assert dump(run(restarted, conv.messages).messages) == dump(first.messages)


def test_later_requests_leave_earlier_decisions_byte_identical(tmp_path: Path) -> None:
    conv = Conv().user("go").call("bash", {"command": "a"}, big_text("a", 55_000)).say("next?").user("yes")
    layer = ToolResultBudget(Settings(), tmp_path)
    first = run(layer, conv.messages)
    n = len(conv.messages)
    conv.call("bash", {"command": "b"}, big_text("b", 90_000)).say("done")
    second = run(layer, conv.messages)
    assert dump(second.messages[:n]) == dump(first.messages)
    assert [e.ids for e in second.events] == [["call_2"]]


def test_fresh_results_over_the_per_message_budget_spill_largest_first(tmp_path: Path) -> None:
    s = Settings()  # 50K single cap, 200K per message
    sizes = [45_000, 49_000, 30_000, 48_000, 47_000]  # 219K together, each under the single cap
    calls = [("read_file", {"path": f"f{i}"}, big_text(f"f{i}", n)) for i, n in enumerate(sizes)]
    conv = Conv().user("read all").calls(*calls).say("done")
    result = run(ToolResultBudget(s, tmp_path), conv.messages)
    replaced = {i for i, p in returns(result.messages).items() if p.metadata}
    assert replaced == {"call_2"}  # the 49K one alone brings the request under 200K
    total = sum(len(p.content) for p in returns(result.messages).values())
    assert total <= s.tool_results_per_message_chars


def test_a_result_seen_and_kept_stays_kept(tmp_path: Path) -> None:
    conv = Conv().user("go").call("bash", {"command": "a"}, big_text("a", 20_000)).say("ok")
    layer = ToolResultBudget(Settings(), tmp_path)
    run(layer, conv.messages)
    # Same state, stricter settings: the seen result stays as the model saw it; a new one obeys them.
    strict = ToolResultBudget(Settings(tool_result_max_chars=10_000), tmp_path)
    strict.load_state(layer.state_to_json())
    conv.user("again").call("bash", {"command": "b"}, big_text("b", 20_000)).say("ok")
    out = returns(run(strict, conv.messages).messages)
    assert out["call_1"].content == big_text("a", 20_000)
    assert out["call_2"].metadata["compact_agent"]["budget"]["action"] == "spill"


def test_without_a_spill_dir_the_preview_says_nothing_was_saved() -> None:
    conv = Conv().user("go").call("bash", {"command": "x"}, big_text("x", 60_000)).say("done")
    a = run(ToolResultBudget(Settings(), None), conv.messages)
    b = run(ToolResultBudget(Settings(), None), conv.messages)
    assert dump(a.messages) == dump(b.messages)
    preview = returns(a.messages)["call_1"].content
    assert "was not saved" in preview and "read_file(" not in preview
    assert a.events[0].action == "truncate"


def test_a_failed_write_truncates_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    conv = Conv().user("go").call("bash", {"command": "x"}, big_text("x", 60_000)).say("done")
    with caplog.at_level(logging.WARNING):
        result = run(ToolResultBudget(Settings(), not_a_dir), conv.messages)
    assert "was not saved" in returns(result.messages)["call_1"].content
    assert "could not spill" in caplog.text


def test_images_are_left_alone(tmp_path: Path) -> None:
    """A result of files alone has no text to cut (the text beside an image is measured:
    test_text_beside_an_image_is_previewed.py)."""
    image = BinaryContent(data=b"\x89PNG" + b"0" * 100, media_type="image/png")
    conv = Conv().user("look").call("screenshot", {}, [image, image]).say("done")
    result = run(ToolResultBudget(Settings(), tmp_path), conv.messages)
    assert dump(result.messages) == dump(conv.messages) and not result.events


def test_small_results_and_other_messages_are_the_same_objects(tmp_path: Path) -> None:
    conv = Conv().user("go").call("bash", {"command": "ls"}, "a\nb\n").say("done")
    result = run(ToolResultBudget(Settings(), tmp_path), conv.messages)
    assert all(a is b for a, b in zip(result.messages, conv.messages, strict=True))
    assert result.messages is not conv.messages and result.tokens_freed == 0
    assert tokens.estimate(result.messages) == tokens.estimate(conv.messages)


def test_spill_names_cannot_escape_the_directory() -> None:
    assert spill_name("call_1") == "call_1.txt"
    for bad in ("../../etc/passwd", "..", "a/b", ""):
        name = spill_name(bad)
        assert "/" not in name and not name.startswith(".") and name.endswith(".txt")
    assert spill_name("a/b") != spill_name("a_b")


def test_a_preview_counts_lines_as_an_editor_does_and_says_how_to_reach_long_lines(tmp_path: Path) -> None:
    spilled = tmp_path / "out.txt"
    log = "".join(f"line {i}\n" for i in range(6_000))  # 6,000 lines, the last one ended by its newline
    preview = build_preview(log, 200, spilled)
    assert "(58,890 characters, 6,000 lines);" in preview
    assert preview.endswith(f'Read the rest with read_file(path="{spilled}", offset=<first line>, '
                            "limit=<number of lines>).]")
    assert "(3 characters, 1 line);" in build_preview("abc", 2, None)
    one_line = "x" * 2_000 + "\n" + "y" * 2_001  # one line longer than a line-by-line read shows
    assert build_preview(one_line, 200, spilled).endswith(
        "Read the rest with grep, which shows the text around a match, or "
        f"`tail -c +101 {spilled} | head -c 4000` for the next 4,000 bytes (its lines are too long for read_file).]")
    assert "read_file(path=" in build_preview("x" * 2_000 + "\n" + "y" * 2_000, 200, spilled)


def test_a_long_line_previews_command_prints_what_follows_the_head_whatever_its_characters(tmp_path: Path) -> None:
    """The command is run as the model would run it, on the file the layer spilled."""
    text = "é" * 490 + "MARK" + "ü" * 60_000  # the preview's head is 500 characters: 996 bytes
    conv = Conv().user("go").call("bash", {"command": "cat it"}, text).say("ok")
    result = run(with_our_tools(ToolResultBudget(Settings(tool_result_preview_chars=1_000), tmp_path / "spill dir")),
                 conv.messages)
    preview = returns(result.messages)["call_1"].content
    assert isinstance(preview, str) and preview.startswith("é" * 490 + "MARK" + "ü" * 6 + "\n\n[...")
    found = re.search(r"`(tail -c \+997 .+? \| head -c 4000)` for the next 4,000 bytes", preview)
    assert found is not None, preview[-400:]
    shown = subprocess.run(["bash", "-c", found.group(1)], capture_output=True, timeout=30, check=True).stdout
    assert shown.decode("utf-8") == "ü" * 2_000 == text[500:2_500]


def test_a_key_in_a_spilled_result_leaves_the_preview_and_the_file_in_step(tmp_path: Path) -> None:
    """The file holds the result with registered secrets redacted, and the preview is cut from that
    same text: its byte offset reads on exactly after its head (a key in the head used to shift it),
    and the key is in neither."""
    from compact_agent.context.plumbing import secrets

    key = "sk-BUDGET-offset-0123456789abcdef0123456789"
    secrets.register(key)
    text = f"token: {key}\n" + "".join(chr(65 + i % 26) for i in range(60_000))  # one long line after it
    conv = Conv().user("go").call("bash", {"command": "env; cat blob"}, text).say("ok")
    result = run(with_our_tools(ToolResultBudget(Settings(tool_result_preview_chars=1_000), tmp_path)), conv.messages)
    preview = returns(result.messages)["call_1"].content
    held = (tmp_path / "call_1.txt").read_text()
    assert isinstance(preview, str) and key not in preview and key not in held
    assert held == text.replace(key, secrets.REDACTED)
    assert_reads_on_after_the_head(preview, held)


def test_a_preview_shows_whole_lines_and_cuts_a_line_only_where_it_has_none() -> None:
    """A log's preview ended mid-line ('…10:00:31 INF') and its tail began mid-word ('mpiling'): the
    head now ends at a line break, the tail begins after one, giving up at most a quarter of each."""
    lines = "".join(f"10:00:{i:02d} INFO compiling module_{i}.c\n" for i in range(200))
    preview = build_preview(lines, 2_000, None)
    head, rest = preview.split("\n\n[... ", 1)
    assert lines.startswith(head) and head.endswith("\n") and len(head) >= 750
    one_line = "x" * 5_000  # minified: no line break to end at, so the characters as before
    assert build_preview(one_line, 2_000, None).startswith("x" * 1_000 + "\n\n[... 3,000 characters omitted")
