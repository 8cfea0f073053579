"""`plural` writes the plural English takes: `2 boxes`, not `2 boxs`."""

from compact_agent.words import plural


def test_plural_endings() -> None:
    assert [plural(2, w) for w in ("box", "buzz", "match", "push", "pass", "file")] == [
        "2 boxes", "2 buzzes", "2 matches", "2 pushes", "2 passes", "2 files"]
    assert plural(1, "box") == "1 box"
