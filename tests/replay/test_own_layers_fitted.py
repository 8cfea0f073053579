"""Our own sessions are fitted against what their layers sent. One `-p "read all files"` turn at a
12,000-token window (five files of ~9 KB read; the tool-result budget moves each read to a file and
sends a preview) was analyzed as 'recorded usage does not follow the messages (best fit off by 157%
on average: a stand-in model's numbers?)': the replay holds the full reads, the recorded usage is of
the previews. The session's event log says what the layers kept out of each request, and the fit now
takes it off; a session file without its log beside it is not said to be a stand-in model's."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.usage import RequestUsage

from compact_agent.replay.importers import load_transcript
from compact_agent.replay.sizing import kept_out, recorded_points
from compact_agent.session.event_log import EventLog
from compact_agent.session.store import SessionStore
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply
from tests.forked_cli import run_forked

from .test_cli_analyze import cli

FILES = ["app.py", "utils.py", "models.py", "db.py", "cli.py"]


def _reads(req: ChatRequest) -> Reply:
    """Reads the five files one request at a time, then answers."""
    done = sum(1 for m in req.messages if m.get("role") == "assistant" and m.get("tool_calls"))
    if done < len(FILES):
        return Reply.tools([("read_file", {"path": FILES[done]})])
    return Reply.text("I read all five files.")


def _session(tmp_path: Path) -> Path:
    """The project's sessions folder after one turn reading the five files at a 12K window."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    for name in FILES:
        (project / name).write_text("".join(f"def {name[:-3]}_{i}(x):\n    return x + {i}  # padding words here\n"
                                            for i in range(170)))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env |= {"COMPACT_AGENT_HOME": str(home), "COMPACT_AGENT_CONFIG": str(home / "config.toml")}
    with FakeOpenAIServer(_reads, model="fake-model") as server:
        code, _, err = run_forked(["-p", "read all files", "--model", "fake-model", "--base-url", server.base_url,
                                   "--api-key", "k", "--context-window", "12000", "--yes"], env, project, 120)
    assert code == 0, err.decode()
    [folder] = (home / "projects").iterdir()
    return folder


def _fit(path: Path) -> dict[str, Any]:
    out = cli(str(path), "-s", "ours", "--json")
    assert out.returncode == 0, out.stderr
    [transcript] = json.loads(out.stdout)["transcripts"]
    return dict(transcript["fit"])


def test_the_fit_takes_off_what_the_layers_kept_out(tmp_path: Path) -> None:
    folder = _session(tmp_path)
    [session] = folder.glob("*.jsonl")
    spills = [json.loads(line) for line in (folder / session.stem / "events.jsonl").read_text().splitlines()]
    assert sum(e["layer"] == "budget" and e["action"] == "spill" for e in spills) >= 4, spills  # the case at hand
    fit = _fit(folder)
    assert fit["samples"] == 6 and fit["error_mean"] is not None and fit["error_mean"] < 0.02, fit
    assert "fitted on what its own layers sent (its event log)" in fit["notes"], fit

    alone = tmp_path / "copied" / session.name  # the session file without its side folder
    alone.parent.mkdir()
    shutil.copy(session, alone)
    notes = " ".join(_fit(alone)["notes"])
    assert "stand-in model" not in notes and f"{session.stem}/events.jsonl beside the file) is not there" in notes, notes


def test_a_view_fitted_to_the_window_is_left_out_and_other_conversations_ignored(tmp_path: Path) -> None:
    """A decision counts for its request and every later one; a view fitted to the window alone
    (`budget`/`shrink`) for its own request, which is not fitted; another conversation's events, and
    failed ones, are not counted."""
    store = SessionStore(tmp_path, "s1")
    t0 = datetime(2026, 12, 7, 10, tzinfo=UTC)
    messages = []
    for i in range(4):
        messages += [ModelRequest(parts=[UserPromptPart(f"step {i} " + "words " * 400)]),
                     ModelResponse(parts=[TextPart("ok")], usage=RequestUsage(input_tokens=1_000 + 100 * i),
                                   timestamp=t0 + timedelta(minutes=i), conversation_id="s1")]
    store.append(messages)
    log = EventLog(tmp_path / "s1", str)
    for minute, layer, action, freed, conversation in ((0.5, "budget", "spill", 300, "s1"),
                                                      (1.5, "budget", "shrink", 900, "s1"),
                                                      (1.6, "microcompact", "clear", 50, "other"),
                                                      (2.5, "snip", "failed", 70, "s1")):
        log.append({"time": (t0 + timedelta(minutes=minute)).isoformat(), "layer": layer, "action": action,
                    "freed": freed, "conversation_id": conversation})
    t = load_transcript(store.path)
    assert t.view_events is not None and len(t.view_events) == 2
    responses = [i for i, m in enumerate(t.messages) if isinstance(m, ModelResponse)]
    assert kept_out(t.view_events, t.messages) == {responses[1]: 300, responses[2]: None, responses[3]: 300}
    assert [y for _, y in recorded_points(t, t.messages)] == [1_000, 1_100, 1_300]

    # A compaction (its archive written) after the third request: what was kept out before it ends there,
    # and the requests before it are not fitted unless the replay holds the history they sent, rebuilt.
    log.append({"time": (t0 + timedelta(minutes=2.7)).isoformat(), "layer": "compact", "action": "full",
                "conversation_id": "s1", "detail": {"archive": "a.jsonl"}})
    log.append({"time": (t0 + timedelta(minutes=2.8)).isoformat(), "layer": "compact", "action": "blocked",
                "conversation_id": "s1"})
    events = load_transcript(store.path).view_events
    assert events is not None and [kind for _, _, kind in events] == ["kept", "alone", "reset"]
    assert kept_out(events, t.messages) == dict.fromkeys(responses[:3])
    assert kept_out(events, t.messages, [responses[2] + 1]) == {responses[1]: 300, responses[2]: None}
