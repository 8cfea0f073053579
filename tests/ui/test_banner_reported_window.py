"""The REPL's first line names the window a session will work in before the session is built: one a local
server reported to an earlier session (start_notes.reported_window) is that window, larger or smaller than the
one assumed, as a window learned from a refusal is where it is smaller."""

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


def test_the_first_line_names_a_window_reported_larger_or_smaller(tmp_path: Path) -> None:
    key = server_windows.endpoint(URL, "openai")
    server_windows.remember(tmp_path / "h", key, "local", 131_072, server_windows.REPORTED)
    assert Start.of(opts(tmp_path)).window == 131_072  # above the 32,768 assumed: reported, the window
    server_windows.remember(tmp_path / "h", key, "local", 8_192, server_windows.REPORTED)
    assert Start.of(opts(tmp_path)).window == 8_192
    assert Start.of(opts(tmp_path, window=16_000)).window == 16_000  # a window given wins
    server_windows.remember(tmp_path / "h", key, "local", 65_536, "refused")  # a refusal's, above the one assumed
    assert Start.of(opts(tmp_path)).window == 32_768  # only ever lowers it, as before
