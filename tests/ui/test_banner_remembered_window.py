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


def test_a_window_assumed_for_a_model_this_version_does_not_know_is_said_as_assumed(tmp_path: Path) -> None:
    """A local server's own model ('local') starts at the 32,768 assumed for a model the registry does
    not have: the banner said 'window 32,768' as if known. Given, remembered for the server, or the
    registry's own, it is said bare."""
    start = Start.of(opts(tmp_path))
    assert start.assumed and "· window 32,768 (assumed) ·" in start.banner(200)
    assert not Start.of(opts(tmp_path, window=32_768)).assumed  # given, though the same number
    known = Start.of(SessionOptions(cwd=tmp_path / "p", model="deepseek-chat", base_url=URL, api_key="k",
                                    home=tmp_path / "h"))
    assert not known.assumed and "· window 128,000 ·" in known.banner(200)
    # Reported by the server as the very number assumed (llama.cpp started with -c 32768): known.
    server_windows.remember(tmp_path / "h", server_windows.endpoint(URL, "openai"), "local", 32_768,
                            how=server_windows.REPORTED)
    reported = Start.of(opts(tmp_path))
    assert not reported.assumed and "· window 32,768 ·" in reported.banner(200)
    server_windows.remember(tmp_path / "h", server_windows.endpoint(URL, "openai"), "local", 8_000)
    learned = Start.of(opts(tmp_path))
    assert not learned.assumed and "· window 8,000 ·" in learned.banner(200)


def resumed(tmp_path: Path, learned: object = None, window: int | None = None) -> SessionOptions:
    """`-r ID` of a session whose saved state kept `learned` (layers.json's `learned.window`), given `window`."""
    from compact_agent.agent.run.options import session_root

    o = opts(tmp_path, window)
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
    server_windows.remember(tmp_path / "h", server_windows.endpoint(URL, "openai"), "local", 8_000)
    here = server_windows.label(server_windows.endpoint(URL, "openai"), "local")
    assert Start.of(resumed(tmp_path, [8_000, 32_768, here])).window == 8_000
    assert Start.of(resumed(tmp_path, [8_000, 32_768])).window == 8_000  # an older version's


def test_a_resumed_session_given_a_window_takes_its_own_back_only_from_the_same_server(tmp_path: Path) -> None:
    """Given 16,000 on its command line, the window it learned below 16,000 from this server and model,
    while it is kept for them (server_windows.py); nothing else."""
    here = server_windows.label(server_windows.endpoint(URL, "openai"), "local")
    assert Start.of(resumed(tmp_path, [8_000, 16_000, here], 16_000)).window == 16_000  # forgotten, or never kept
    server_windows.remember(tmp_path / "h", server_windows.endpoint(URL, "openai"), "local", 8_000)
    assert Start.of(resumed(tmp_path, [8_000, 16_000, here], 16_000)).window == 8_000
    assert Start.of(resumed(tmp_path, [8_000, 16_000, "big at http://10.0.0.2/v1"], 16_000)).window == 16_000
    assert Start.of(resumed(tmp_path, [8_000, 64_000, here], 16_000)).window == 16_000  # learned below another
    assert Start.of(resumed(tmp_path, [8_000, 16_000], 16_000)).window == 8_000  # an older version's: the one kept
    assert Start.of(resumed(tmp_path, [7_000, 16_000], 16_000)).window == 16_000  # not that one: another server's
    assert Start.of(resumed(tmp_path, "junk", 16_000)).window == 16_000


def test_a_resumed_session_with_none_of_its_own_starts_in_the_one_remembered_for_the_server(tmp_path: Path) -> None:
    server_windows.remember(tmp_path / "h", server_windows.endpoint(URL, "openai"), "local", 6_000)
    assert Start.of(resumed(tmp_path)).window == 6_000
