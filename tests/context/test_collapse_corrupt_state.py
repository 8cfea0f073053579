"""A damaged collapse state is said in one line of our words, and the layer goes on without it.

The collapse layer keeps its commits in a log (`collapse/commits.jsonl` beside a session) and in the
saved layer state. A line of the log it could not use was told as "skipping corrupt line 1 of
collapse log …/commits.jsonl: Expecting value: line 1 column 1 (char 0)", or "…: 'list' object has no
attribute 'items'", or "…: Commit.__init__() missing 4 required positional arguments: …": the
parser's or Python's own words, one warning per line of the file, and nothing of what the layer did
then. Now each file (and each saved state) is one line: which file, that it is not a valid collapse
state, where and why in our words, and what the layer goes on with. A commit whose fields have the
wrong type inside (ids that are no list, a `time` that is a number) was taken as it was, and failed
later; it is refused with the rest.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from compact_agent.config import Settings
from compact_agent.context.layers.collapse import ContextCollapse, read_log
from compact_agent.context.plumbing.tokens import estimate
from tests.context.strategies import dump
from tests.context.test_collapse import long_conv, run

#: Words of Python's or the JSON parser's that must not reach a user.
PYTHON = ("Error", "Expecting", "object has no attribute", "__init__", "positional", "isoformat", "char ",
          "Traceback", "'NoneType'", "not iterable", "not supported between")


def good_log(tmp_path: Path) -> tuple[Path, str, list[str]]:
    """A log of the commits a run made, its text, and the view that run got (dumped)."""
    conv = long_conv()
    log = tmp_path / "collapse" / "commits.jsonl"
    first = run(ContextCollapse(Settings(), log), conv.messages, estimate(conv.messages))
    assert len(read_log(log)) == 1
    return log, log.read_text(), dump(first.messages)


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def reopened(log: Path, caplog: pytest.LogCaptureFixture) -> tuple[ContextCollapse, list[str]]:
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        layer = ContextCollapse(Settings(), log)
    said = warnings(caplog)
    for line in said:
        assert "\n" not in line and not any(word in line for word in PYTHON), line
    return layer, said


@pytest.mark.parametrize(("text", "why"), [
    ("not json\n", "line 1 is not JSON"),
    ("\x00\x01 binary\n", "line 1 is not JSON"),
    ("[1, 2]\n", "line 1 is a JSON list, not a commit"),
    ("null\n", "line 1 is a JSON null, not a commit"),
    ('{"id": "x"}\n', "line 1 is a commit without its first, last, digest and timestamp"),
    ('{"id": 7, "first": "a", "last": "b", "digest": "d", "timestamp": "2024-01-01T00:00:00"}\n',
     "line 1 is a commit whose id is not a string"),
    ('{"id": "c", "first": "a", "last": "b", "digest": "d", "timestamp": "yesterday"}\n',
     "line 1 is a commit whose timestamp is not a date and time"),
    ('{"id": "c", "first": "a", "last": "b", "digest": "d", "timestamp": "2024-01-01T00:00:00", "ids": 5}\n',
     "line 1 is a commit whose ids are not a list of strings"),
    ('{"id": "c", "first": "a", "last": "b", "digest": "d", "timestamp": "2024-01-01T00:00:00", "count": "x"}\n',
     "line 1 is a commit whose count is not a whole number"),
    ('{"id": "c", "first": "a", "last": "b", "digest": "d", "timestamp": "2024-01-01T00:00:00", "time": 5}\n',
     "line 1 is a commit whose time is not a string"),
    ('{"id": "torn", "fir', "line 1 is cut short (a write interrupted)"),
    ("[" * 100_000 + "\n", "line 1 is not JSON"),
])
def test_a_log_of_nothing_valid_is_said_in_one_line_and_the_layer_starts_afresh(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str, why: str) -> None:
    log, _, first = good_log(tmp_path)
    log.write_text(text)
    layer, said = reopened(log, caplog)
    assert said == [f"the collapse log {log} is not a valid collapse state ({why}); "
                    "the layer starts with no collapsed spans"]
    assert layer.commits == []
    conv = long_conv()
    again = run(layer, conv.messages, estimate(conv.messages))  # collapses anew, as the first run did
    assert dump(again.messages) == first and [e.action for e in again.events] == ["commit"]
    assert len(read_log(log)) == 1


def test_a_log_with_some_bad_lines_keeps_its_good_commits(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log, good, first = good_log(tmp_path)
    log.write_text("not json\n[1]\n" + good + '{"id": "x"}\n\n"text"\n{"id": "torn", "fir')
    layer, said = reopened(log, caplog)
    assert said == [f"the collapse log {log} holds lines that are not a valid collapse state (line 1 is not JSON; "
                    "line 2 is a JSON list, not a commit; line 4 is a commit without its first, last, digest and "
                    "timestamp; and 2 more lines); the layer skips them and goes on with the 1 commit it read"]
    conv = long_conv()
    again = run(layer, conv.messages, estimate(conv.messages))
    assert dump(again.messages) == first and not again.events  # the commit read is re-applied


def test_a_truncated_log_is_said_so(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log, good, first = good_log(tmp_path)
    log.write_text(good + good[: len(good) // 2])
    layer, said = reopened(log, caplog)
    assert said == [f"the collapse log {log} holds lines that are not a valid collapse state (line 2 is cut short "
                    "(a write interrupted)); the layer skips them and goes on with the 1 commit it read"]
    conv = long_conv()
    assert dump(run(layer, conv.messages, estimate(conv.messages)).messages) == first


@pytest.mark.parametrize(("commits", "why", "kept"), [
    (5, "its commits are a JSON number, not a list", 0),
    (None, "its commits are a JSON null, not a list", 0),
    ("abc", "its commits are a JSON string, not a list", 0),
    ([1, {"id": "x"}], "commit 1 is a JSON number, not a commit; commit 2 is a commit without its first, last, digest "
                       "and timestamp", 0),
    ("GOOD+", "commit 2 is a commit whose ids are not a list of strings", 1),
])
def test_a_saved_state_of_the_wrong_shape_is_said_in_one_line(
        caplog: pytest.LogCaptureFixture, commits: object, why: str, kept: int) -> None:
    conv = long_conv()
    made = ContextCollapse(Settings(), None)
    first = run(made, conv.messages, estimate(conv.messages))
    saved = made.state_to_json()
    if commits == "GOOD+":
        commits = [*saved["commits"], {**saved["commits"][0], "id": "other", "ids": 5}]
    layer = ContextCollapse(Settings(), None)
    with caplog.at_level(logging.WARNING):
        layer.load_state(json.loads(json.dumps({"commits": commits})))
    said = ("holds commits that are not a valid collapse state ({}); the layer skips them and goes on with the 1 "
            "commit it read" if kept else "is not a valid collapse state ({}); the layer starts with no collapsed spans")
    assert warnings(caplog) == ["the saved state of the collapse layer " + said.format(why)]
    assert len(layer.commits) == kept
    again = run(layer, conv.messages, estimate(conv.messages))
    assert dump(again.messages) == dump(first.messages)


def test_a_whole_log_and_state_say_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log, _, _ = good_log(tmp_path)
    layer, said = reopened(log, caplog)
    with caplog.at_level(logging.WARNING):
        layer.load_state(layer.state_to_json())
    assert said == [] and warnings(caplog) == [] and len(layer.commits) == 1


def test_a_saved_state_of_no_list_beside_a_good_log_goes_on_with_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log, _, first = good_log(tmp_path)
    layer, _ = reopened(log, caplog)
    with caplog.at_level(logging.WARNING):
        layer.load_state({"commits": {"c-1": "x"}})
    assert warnings(caplog) == ["the saved state of the collapse layer is not a valid collapse state (its commits "
                                "are a JSON object, not a list); the layer goes on with the 1 commit of its log"]
    conv = long_conv()
    assert dump(run(layer, conv.messages, estimate(conv.messages)).messages) == first
