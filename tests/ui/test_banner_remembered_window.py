"""The REPL's first line ('compact-agent · MODEL · window N · session …') is shown before the session
is built. A new session starting within a window an earlier one learned from the server said
'window 32,768' right above 'working within 8,000 tokens, the window … named when it refused a request
for … in an earlier session'; it names the window the session will work in."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run import server_windows
from compact_agent.agent.run.options import SessionOptions
from compact_agent.ui.repl_start import Start

URL = "http://127.0.0.1:9/v1"


def opts(tmp_path: Path, window: int | None = None) -> SessionOptions:
    (tmp_path / "p").mkdir(exist_ok=True)
    return SessionOptions(cwd=tmp_path / "p", model="local", base_url=URL, api_key="k", context_window=window,
                          home=tmp_path / "h")


def test_the_first_line_names_the_window_remembered_for_the_server(tmp_path: Path) -> None:
    assert Start.of(opts(tmp_path)).window == 32_768  # nothing remembered: the window assumed
    server_windows.remember(tmp_path / "h", server_windows.endpoint(URL, "openai"), "local", 8_000)
    assert Start.of(opts(tmp_path)).window == 8_000
    assert Start.of(opts(tmp_path, window=16_000)).window == 16_000  # a window given wins


def resumed(tmp_path: Path, learned: object = None) -> SessionOptions:
    """`-r ID` of a session whose saved state kept `learned` (layers.json's `learned.window`)."""
    from compact_agent.agent.run.options import session_root

    o = opts(tmp_path)
    root = session_root(o.cwd, o.home)
    root.mkdir(parents=True, exist_ok=True)
    sid = "20261201-120000-abcdef"
    (root / f"{sid}.jsonl").write_text('{"v": 1, "id": "a1", "parent": null, "time": "2026-12-01T12:00:00+00:00", '
                                       '"kind": "prompt", "prompt": {"text": "hi"}}\n')
    if learned is not None:
        (root / sid).mkdir(exist_ok=True)
        (root / sid / "layers.json").write_text(json.dumps({"learned": {"window": learned}}))
    o.session_id = sid
    return o


def test_a_resumed_session_names_the_window_its_own_state_kept(tmp_path: Path) -> None:
    """`-c` of a session that learned the server's 8,000 below the 32,768 assumed said 'window 32,768'
    over a toolbar and a /status of 8,000, as its manager takes the kept window back."""
    assert Start.of(resumed(tmp_path, [8_000, 32_768])).window == 8_000
    assert Start.of(resumed(tmp_path, [8_000, 64_000])).window == 32_768  # learned below another window: not taken
    assert Start.of(resumed(tmp_path, "junk")).window == 32_768


def test_a_resumed_session_with_none_of_its_own_starts_in_the_one_remembered_for_the_server(tmp_path: Path) -> None:
    server_windows.remember(tmp_path / "h", server_windows.endpoint(URL, "openai"), "local", 6_000)
    assert Start.of(resumed(tmp_path)).window == 6_000
