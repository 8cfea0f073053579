"""Each working directory has its own sessions folder, also when two paths read alike.

The folder was named by the path with every run of other characters made `-`: `my_app` and `my-app`
shared one, so `-c` in one went on with the other's conversation and `/rewind` restored files in the
other (checkpoints hold absolute paths). The name now ends with a hash of the whole path; a folder
saved under the old name is moved to the new one the first time.
"""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import session_root
from compact_agent.session.files import legacy_slug, list_sessions, project_slug
from compact_agent.session.store import SessionStore
from tests.session.test_store import msgs


def test_paths_that_read_alike_get_folders_of_their_own(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pairs = [("my_app", "my-app"), ("a.b", "a-b"), ("x y", "x-y")]
    for one, other in pairs:
        a, b = tmp_path / one, tmp_path / other
        a.mkdir()
        b.mkdir()
        assert legacy_slug(a) == legacy_slug(b)  # what made them share one
        assert session_root(a, home) != session_root(b, home)
        SessionStore(session_root(a, home), "s1").append(msgs(1))
        assert [p.stem for p in list_sessions(session_root(a, home))] == ["s1"]
        assert list_sessions(session_root(b, home)) == []


def test_the_name_keeps_the_end_of_the_path_readable_and_is_the_same_every_time(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["segment"] * 40, "project")
    deep.mkdir(parents=True)
    name = project_slug(deep)
    assert name == project_slug(deep) and name.split("-")[-2] == "project" and len(name) <= 113


def test_sessions_saved_under_the_old_name_are_moved_to_the_new_one(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    cwd.mkdir()
    old = home / "projects" / legacy_slug(cwd)
    SessionStore(old, "earlier").append(msgs(2))
    (old / "prompt_history").write_text("+fix the parser\n")
    root = session_root(cwd, home)
    assert root.name == project_slug(cwd) and not old.exists()
    assert [p.stem for p in list_sessions(root)] == ["earlier"]
    assert (root / "prompt_history").read_text() == "+fix the parser\n"
    assert session_root(cwd, home) == root  # and it stays there


def test_a_folder_that_cannot_be_moved_is_used_where_it_is(tmp_path: Path, monkeypatch) -> None:
    """A read-only home: the move fails, and the sessions saved there are still listed and resumed."""
    home, cwd = tmp_path / "home", tmp_path / "proj"
    cwd.mkdir()
    old = home / "projects" / legacy_slug(cwd)
    SessionStore(old, "earlier").append(msgs(1))

    def refuse(self: Path, target: Path) -> Path:
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(Path, "rename", refuse)
    assert session_root(cwd, home) == old
    assert [p.stem for p in list_sessions(session_root(cwd, home))] == ["earlier"]


def test_the_old_name_of_one_directory_that_is_the_new_name_of_another_is_not_taken(tmp_path: Path) -> None:
    """`proj` has its folder `…-proj-4c1e…`; a directory named `proj-4c1e…` has that as its old name."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir()
    SessionStore(session_root(proj, home), "mine").append(msgs(1))
    other = tmp_path / ("proj-" + project_slug(proj).rsplit("-", 1)[1])
    other.mkdir()
    assert legacy_slug(other) == project_slug(proj)
    assert list_sessions(session_root(other, home)) == []
    assert [p.stem for p in list_sessions(session_root(proj, home))] == ["mine"]
