"""A sessions folder's name keeps no provider key that is in the working directory's path: the
readable part has `REDACTED` in its place (also where the path holds the key in another spelling
that reads as the key once made readable), and the hash of the whole path still tells two such
directories apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.options import session_root
from compact_agent.context.plumbing import secrets
from compact_agent.session.files import project_slug
from compact_agent.session.store import SessionStore
from tests.session.test_store import msgs

KEYS = ("sk-proj-Zq8XkT3vRw9LmN2pQa7sYb4cTT11", "sk-proj-Hb5NmW2qLx8RtV4cKp9sZd3fGG77")
#: A key cut by dashes into parts too short to be redacted as pieces of it: spelt with dots, the
#: path holds none of its forms, and once made readable it is the key.
DASHED = "sk-test-ab12cd-ef34gh-ij56kl-mn78op"


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> tuple[str, ...]:
    for name, empty in (("registered_keys", set()), ("key_forms", set()), ("_spread", []), ("_bodies", set()),
                        ("_pieces", None)):
        monkeypatch.setattr(secrets, name, empty)  # registered for this test only
    for key in (*KEYS, DASHED):
        secrets.register(key)
    return KEYS


def test_two_directories_named_with_two_keys_get_two_folders_without_them(tmp_path: Path, keys) -> None:
    home = tmp_path / "home"
    one, other = (tmp_path / key for key in keys)
    for d in (one, other):
        d.mkdir()
    assert project_slug(one).rsplit("-", 1)[0] == project_slug(other).rsplit("-", 1)[0]  # the readable part
    assert session_root(one, home) != session_root(other, home)
    SessionStore(session_root(one, home), "s1").append(msgs(1))
    assert list(session_root(other, home).glob("*.jsonl")) == []
    names = [str(p.relative_to(home)) for p in home.rglob("*")]
    assert names and not any(k in n or k[8:] in n for k in keys for n in names), names


def test_a_key_spelt_with_dots_in_the_path_is_not_in_the_name(tmp_path: Path, keys) -> None:
    dotted = tmp_path / DASHED.replace("-", ".")
    dotted.mkdir()
    assert secrets.redact(str(dotted)) == str(dotted)  # no form of the key, as the path spells it
    name = project_slug(dotted)
    assert DASHED not in name and name.endswith("-REDACTED-" + name.rsplit("-", 1)[1]), name
