"""The windows kept per server (servers/windows.json) are keyed by the endpoint without its secrets:
a --base-url with a password or a `?api_key=` value was written into the file whole (`config` lists
it), and a password the writer's redaction hid made the key no lookup matched again."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run import server_windows as sw

URL = "http://bob:hunter2@gpu-box:8000/v1?api_key=tok-1234567890/"


def test_a_window_kept_for_an_address_with_secrets_is_found_and_forgotten_without_writing_them(tmp_path: Path) -> None:
    key = sw.endpoint(URL, "openai")
    assert "hunter2" not in key and "tok-1234567890" not in key
    sw.remember(tmp_path, key, "local", 8_000, "refused")
    written = sw.path_in(tmp_path).read_text()
    assert "hunter2" not in written and "tok-1234567890" not in written
    assert sw.remembered(tmp_path, sw.endpoint(URL, "openai"), "local") == 8_000  # the next session finds it
    assert [(m, k.window) for _, m, k in sw.forget(tmp_path, URL)] == [("local", 8_000)]  # named as typed
    assert sw.remembered(tmp_path, key, "local") is None
    plain = sw.endpoint("http://gpu-box:8000/v1/", "openai")
    assert plain == "http://gpu-box:8000/v1" and sw.endpoint(None, "deepseek") == "deepseek:"


def test_the_forget_hint_runs_as_shown(tmp_path: Path) -> None:
    """The hint names the command that forgets a window; a URL with `?` or `&` (or a secret shown as
    `***`) is quoted for the shell, and that very argument forgets it."""
    import shlex

    key = sw.endpoint("http://gpu-box:8000/v1?api-version=2024&api_key=tok-1234567890", "openai")
    sw.remember(tmp_path, key, "local", 8_000, "refused")
    hint = sw.forget_hint(key)
    assert hint == f"(compact-agent config --forget-window '{key}' forgets it)"  # `&` would end the command
    words = shlex.split(hint.strip("()").removesuffix(" forgets it"))
    assert words[:3] == ["compact-agent", "config", "--forget-window"] and len(words) == 4
    assert [m for _, m, _ in sw.forget(tmp_path, words[3])] == ["local"]
    assert sw.forget_hint("deepseek:") == "(compact-agent config --forget-window deepseek forgets it)"
