"""The server's limit a conversation learned is saved with the server it was learned from, as the host
names it (`Internals.server`), and taken back only by a conversation given the same window and sent
there: given the same window alone, a conversation resumed against another server or model was held
to the first one's limit. A pair saved without a server (an older version's, or a host that names
none) is taken back where no server is named."""

from __future__ import annotations

from compact_agent.context import ContextManager, LearnedWindow
from compact_agent.context.wiring import Internals


def manager(server: str | None, window: int = 64_000) -> ContextManager:
    return ContextManager.wired(Internals(server=server), window=window)


def test_the_window_learned_is_saved_with_its_server_and_taken_back_only_there() -> None:
    cm = manager("local at http://127.0.0.1:8080/v1")
    cm.learn_window(12_000, 13_000, "reactive")
    state = cm.layer_state()
    assert state["learned"]["window"] == [12_000, 64_000, "local at http://127.0.0.1:8080/v1"]
    same = manager("local at http://127.0.0.1:8080/v1")
    same.load_layer_state(state)
    assert same.limits.window == 12_000
    assert same.window_learned == LearnedWindow(12_000, 64_000, "local at http://127.0.0.1:8080/v1")
    for other in (manager("local at http://10.0.0.2/v1"), manager("big at http://127.0.0.1:8080/v1"), manager(None)):
        other.load_layer_state(state)
        assert other.limits.window == 64_000 and other.window_learned is None


def test_a_pair_saved_without_a_server_is_taken_back_where_none_is_named() -> None:
    state = {"learned": {"window": [12_000, 64_000]}}
    unnamed = manager(None)
    unnamed.load_layer_state(state)
    assert unnamed.limits.window == 12_000 and unnamed.layer_state()["learned"]["window"] == [12_000, 64_000]
    named = manager("local at http://127.0.0.1:8080/v1")
    named.load_layer_state(state)
    assert named.limits.window == 64_000
    for junk in ([12_000, 64_000, 7], [12_000, 64_000, "a", "b"], [64_000, 12_000, "a"], "x"):
        cm = manager("a")
        cm.load_layer_state({"learned": {"window": junk}})
        assert cm.limits.window == 64_000, junk
