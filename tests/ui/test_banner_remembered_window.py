"""The REPL's first line ('compact-agent · MODEL · window N · session …') is shown before the session
is built. A new session starting within a window an earlier one learned from the server said
'window 32,768' right above 'working within 8,000 tokens, the window … named when it refused a request
for … in an earlier session'; it names the window the session will work in."""

from __future__ import annotations

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
