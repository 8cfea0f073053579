"""A window a session learned from a server (its refusal, or prompts it cut) is kept with the
session's state. It was taken back on `-c` by the window given alone: a session resumed against
another server or model with the same `--context-window` stayed held to the first server's limit,
and `config --forget-window all` did not reach it. Now it is kept with the server and model it was
learned from, taken back only there and only while the window is kept for them
(servers/windows.json), and said when a window given on the command line is not the one worked in."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run import server_windows
from compact_agent.agent.run.options import SessionOptions, session_root
from compact_agent.agent.run.runner import AgentSession

A, B = "http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"
SID = "20261201-120000-abcdef"


def session(tmp_path: Path, learned: object, *, url: str = A, model: str = "local",
            window: int | None = 16_000) -> AgentSession:
    """`-r SID` against `url` and `model` given `window`, of a session whose layers.json kept `learned`."""
    opts = SessionOptions(cwd=tmp_path / "p", model=model, base_url=url, api_key="k", context_window=window,
                          home=tmp_path / "h", session_id=SID)
    root = session_root(opts.cwd, opts.home)
    (root / SID).mkdir(parents=True, exist_ok=True)
    (root / f"{SID}.jsonl").write_text('{"v": 1, "id": "a1", "parent": null, "time": "2026-12-01T12:00:00+00:00", '
                                       '"kind": "prompt", "prompt": {"text": "hi"}}\n')
    (root / SID / "layers.json").write_text(json.dumps({"learned": {"window": learned}}))
    return AgentSession(opts)


def window_of(tmp_path: Path, learned: object, **kw: object) -> int:
    s = session(tmp_path, learned, **kw)  # type: ignore[arg-type]
    try:
        return s.cm.limits.window
    finally:
        s.close()


def keep(tmp_path: Path, url: str = A, model: str = "local", window: int = 8_000) -> None:
    server_windows.remember(tmp_path / "h", server_windows.endpoint(url, "openai"), model, window, "refused")


AT_A = server_windows.label(A, "local")


def test_a_window_learned_from_one_server_does_not_hold_a_session_sent_to_another(tmp_path: Path) -> None:
    keep(tmp_path)
    keep(tmp_path, B, "big", 12_000)
    assert window_of(tmp_path, [8_000, 16_000, AT_A]) == 8_000
    assert window_of(tmp_path, [8_000, 16_000, AT_A], url=B, model="big") == 16_000  # another server
    assert window_of(tmp_path, [8_000, 16_000, AT_A], url=B) == 16_000  # the model elsewhere
    keep(tmp_path, A, "big")
    assert window_of(tmp_path, [8_000, 16_000, AT_A], model="big") == 16_000  # another model there


def test_a_window_forgotten_for_the_server_is_forgotten_by_the_sessions_that_kept_it(tmp_path: Path) -> None:
    keep(tmp_path)
    s = session(tmp_path, [8_000, 16_000, AT_A])
    try:
        assert s.cm.limits.window == 8_000
    finally:
        s.close()
    assert [m for _, m, _ in server_windows.forget(tmp_path / "h", "all")] == ["local"]
    s = session(tmp_path, [8_000, 16_000, AT_A])
    try:
        assert s.cm.limits.window == 16_000 and s.cm.window_learned is None and s.notices == []
    finally:
        s.close()


def test_an_older_versions_window_is_taken_back_where_the_server_is_remembered_with_it(tmp_path: Path) -> None:
    """A layers.json of an older version says no server: it loads, and the window is taken back where
    the one kept for the server the session is sent to now is that one; labelled when saved next."""
    assert window_of(tmp_path, [8_000, 16_000]) == 16_000  # nothing kept: whose it was, unknown
    keep(tmp_path)
    assert window_of(tmp_path, [8_000, 16_000], url=B) == 16_000
    assert window_of(tmp_path, [6_000, 16_000]) == 16_000  # not the one kept: another server's, maybe
    s = session(tmp_path, [8_000, 16_000])
    try:
        assert s.cm.limits.window == 8_000 and s.cm.window_learned is not None
        assert s.cm.layer_state()["learned"]["window"] == [8_000, 16_000, AT_A]
    finally:
        s.close()


def test_a_window_given_on_the_command_line_and_not_worked_in_is_said(tmp_path: Path) -> None:
    keep(tmp_path)
    s = session(tmp_path, [8_000, 16_000, AT_A])
    try:
        assert s.notices == [f"working within 8,000 tokens, not the 16,000 given: the window {A} named when it "
                             f"refused a request for local (compact-agent config --forget-window {A} forgets it)"]
    finally:
        s.close()


def test_the_server_is_named_without_the_secrets_of_its_address() -> None:
    named = server_windows.label(server_windows.endpoint("http://me:s3cretpw@10.0.0.2:8080/v1?api_key=s3cretkey",
                                                         "openai"), "local")
    assert named == "local at http://me:***@10.0.0.2:8080/v1?api_key=***"
    assert server_windows.label(server_windows.endpoint(None, "deepseek"), "deepseek-chat") == "deepseek-chat at deepseek:"


async def test_a_window_learned_after_a_model_switch_is_the_new_models(tmp_path: Path) -> None:
    from compact_agent.agent.run.model_switch import switch_model

    (tmp_path / "p").mkdir()
    s = AgentSession(SessionOptions(cwd=tmp_path / "p", model="local", base_url=A, api_key="k", home=tmp_path / "h"))
    try:
        await switch_model(s, "other", remember=False)
        s.cm.learn_window(8_000, 9_000, "reactive")
        assert s.cm.layer_state()["learned"]["window"] == [8_000, 32_768, server_windows.label(A, "other")]
    finally:
        s.close()
