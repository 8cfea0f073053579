"""A sessions folder's name keeps no provider key that is in the working directory's path, and is
the same whichever keys the process knows: what looks like a key in the readable part is `REDACTED`
by its shape (`secrets.key_shaped_at`), registered or not, and the hash of the whole path still
tells two such directories apart. A path with nothing of that shape keeps the name it always had.
Folders named for the same path otherwise (by earlier versions: the key whole, or `REDACTED` where
a registered key stood) are found by the path's hash and moved to the name."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest

from compact_agent.agent.run.options import session_root
from compact_agent.context.plumbing import secrets
from compact_agent.session.files import list_sessions, project_slug
from compact_agent.session.store import SessionStore
from tests.session.test_store import msgs

KEYS = ("sk-proj-Zq8XkT3vRw9LmN2pQa7sYb4cTT11", "sk-proj-Hb5NmW2qLx8RtV4cKp9sZd3fGG77")
#: A key cut by dashes into parts shorter than a key's random part is taken for alone.
DASHED = "sk-test-ab12cd-ef34gh-ij56kl-mn78op"
#: A key of the Anthropic shape: its random part cut by `-` and `_` into words of all lengths.
CUT = "sk-ant-api03-Xy7_kL9mN2pQ-rS4tU6vW8xY0zA1bC3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3x-b_Y5zA7bC9dE1fG3hI5jK7lM9nO1pQ3-AA"
#: Keys of several shapes, and what the readable part of a folder's name keeps of each: the kind.
SHAPED = {KEYS[0]: "sk-proj-", KEYS[1]: "sk-proj-", DASHED: "sk-test-", CUT: "sk-ant-",
          "0123456789abcdef0123456789abcdef": "", "ghijKLMNopqrSTUVwxyzABCD": ""}


def old_name(path: Path) -> str:
    """The name every version gave a path holding no key: its end made readable, the hash of it."""
    whole = str(path.resolve())
    readable = re.sub(r"[^A-Za-z0-9]+", "-", whole).strip("-") or "root"
    return f"{readable[-100:]}-{hashlib.sha256(os.fsencode(whole)).hexdigest()[:12]}"


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, empty in (("registered_keys", set()), ("key_forms", set()), ("_spread", []), ("_bodies", set()),
                        ("_pieces", None)):
        monkeypatch.setattr(secrets, name, empty)  # what a test registers is for it only


def test_the_names_of_ordinary_paths_are_the_ones_they_had(tmp_path: Path) -> None:
    typical = ["/home/jane/projects/my-app", "/home/jane.doe/src/github.com/acme/compact_agent",
               "/tmp/pytest-of-root/pytest-123/test_resume_after_crash0/work", "/root", "/",
               "/Users/Jane Doe/Documents/Code/MyApplicationBackendService", "/workspaces/internationalization-toolkit",
               "/private/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/tmpab12cd34",
               "/srv/www/example.com/releases/2026-12-06_080500", "/mnt/c/Users/dev/source/repos/ConsoleApp1",
               "/home/u/.cache/pypoetry/virtualenvs/proj-Ab3dEf4g-py3.12", "/opt/python3.12/x86_64-linux-gnu",
               str(tmp_path / "proj")]
    assert {p: project_slug(Path(p)) for p in typical} == {p: old_name(Path(p)) for p in typical}


def test_the_name_holds_no_key_and_is_the_same_whichever_keys_are_known(tmp_path: Path, registry) -> None:
    for key, kind in SHAPED.items():
        for spelt in (key, key.replace("-", ".").replace("_", ".")):
            cwd = tmp_path / "proj" / spelt
            unknown = project_slug(cwd)
            secrets.register(key)
            known = project_slug(cwd)
            secrets.register("sk-proj-" + "another0key1of2another3provider")
            assert known == unknown == project_slug(cwd), (spelt, unknown, known)
            readable, digest = unknown.rsplit("-", 1)
            assert readable == f"{old_name(tmp_path / 'proj').rsplit('-', 1)[0]}-{kind}REDACTED", (spelt, unknown)
            random_part = re.sub(r"^(?:[a-z]{1,6}-)*", "", key)
            assert not any(random_part[i:i + 8] in unknown for i in range(len(random_part) - 7)), unknown
            assert digest == old_name(cwd).rsplit("-", 1)[1]  # the hash of the path as it is


def test_two_directories_named_with_two_keys_get_two_folders_without_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    one, other = (tmp_path / key for key in KEYS)
    for d in (one, other):
        d.mkdir()
    assert project_slug(one).rsplit("-", 1)[0] == project_slug(other).rsplit("-", 1)[0]  # the readable part
    assert session_root(one, home) != session_root(other, home)
    SessionStore(session_root(one, home), "s1").append(msgs(1))
    assert list(session_root(other, home).glob("*.jsonl")) == []
    names = [str(p.relative_to(home)) for p in home.rglob("*")]
    assert names and not any(k in n or k[8:] in n for k in KEYS for n in names), names


def earlier_names(cwd: Path) -> list[str]:
    """Names earlier versions gave `cwd`'s folder: the key whole, and `REDACTED` where a key they
    knew stood (its whole random part, or the pieces of it they redacted)."""
    whole, digest = old_name(cwd).rsplit("-", 1)
    body = KEYS[0].removeprefix("sk-proj-")
    return [f"{n}-{digest}" for n in (whole, whole.replace(KEYS[0], "REDACTED"), whole.replace(body[4:], "REDACTED"))]


@pytest.mark.parametrize("earlier", range(3))
def test_a_folder_named_for_the_path_otherwise_is_moved_to_the_name(tmp_path: Path, earlier: int) -> None:
    home, cwd = tmp_path / "home", tmp_path / KEYS[0]
    cwd.mkdir()
    old = home / "projects" / earlier_names(cwd)[earlier]
    SessionStore(old, "earlier").append(msgs(2))
    SessionStore(session_root(tmp_path / KEYS[1], home), "another directory's").append(msgs(1))
    root = session_root(cwd, home)
    assert root.name == project_slug(cwd) != old.name and not old.exists()
    assert [p.stem for p in list_sessions(root)] == ["earlier"]
    assert session_root(cwd, home) == root  # and it stays there
    assert [p.stem for p in list_sessions(session_root(tmp_path / KEYS[1], home))] == ["another directory's"]


def test_of_two_folders_named_for_the_path_the_one_written_last_is_taken(tmp_path: Path) -> None:
    """A run that knew the key and one that did not each made a folder (the version before this one)."""
    home, cwd = tmp_path / "home", tmp_path / KEYS[0]
    cwd.mkdir()
    keyed, redacted = (home / "projects" / n for n in earlier_names(cwd)[:2])
    SessionStore(keyed, "first").append(msgs(1))
    SessionStore(redacted, "later").append(msgs(1))
    os.utime(keyed, ns=(1, 1))
    assert [p.stem for p in list_sessions(session_root(cwd, home))] == ["later"]


def test_a_folder_named_for_the_path_that_cannot_be_moved_is_used_where_it_is(tmp_path: Path, monkeypatch) -> None:
    """A read-only home: the move fails, and the sessions saved there are still listed and resumed."""
    home, cwd = tmp_path / "home", tmp_path / KEYS[0]
    cwd.mkdir()
    old = home / "projects" / earlier_names(cwd)[0]
    SessionStore(old, "earlier").append(msgs(1))

    def refuse(self: Path, target: Path) -> Path:
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(Path, "rename", refuse)
    assert session_root(cwd, home) == old
    assert [p.stem for p in list_sessions(session_root(cwd, home))] == ["earlier"]
