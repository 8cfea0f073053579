"""A compacted session whose sessions folder was moved (its project renamed: the folder follows it;
a home moved) names its archives where they are now.

Before, the file's absolute paths were given as they were saved: /history showed an archive that
no longer existed, the compaction message sent to the model named it, and the model's read_file of
it was refused. The file is not rewritten (an earlier version's files hold the same absolute paths):
a load reads each path that leads nowhere as the archive of its name in the session's own
`compact-history/` folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.context.compaction.summary import archive_named, summary_message
from compact_agent.context.plumbing.markers import is_compaction_message
from compact_agent.session.archives import head_boundaries
from compact_agent.session.store import Boundary, SessionStore


def compacted(root: Path, compactions: int = 1) -> tuple[str, list[Path]]:
    """A session in `root` compacted `compactions` times: its id and its archives, oldest first."""
    store = SessionStore(root, "20261207-000000-abcdef")
    store.lock()
    archives = []
    try:
        store.append([ModelRequest(parts=[UserPromptPart("fix the parser")]), ModelResponse(parts=[TextPart("done")])])
        for n in range(compactions):
            archive = store.archive()
            archives.append(archive)
            head = summary_message(f"summary {n}", archive, ["fix the parser"])
            store.rewrite(Boundary("manual", "full", 900, 100, str(archive), ""), [head])
            store.append([ModelRequest(parts=[UserPromptPart(f"and then {n}")]), ModelResponse(parts=[TextPart("ok")])])
    finally:
        store.unlock()
    return store.session_id, archives


def text_of(m: object) -> str:
    assert isinstance(m, ModelRequest)
    return "\n".join(p.content for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str))


def test_a_moved_sessions_folder_names_its_archives_where_they_are(tmp_path: Path) -> None:
    old, new = tmp_path / "projects" / "app-1", tmp_path / "projects" / "app2-2"
    sid, [first, second] = compacted(old, compactions=2)
    saved = (old / f"{sid}.jsonl").read_bytes()
    shutil.move(old, new)
    here = new / "compact-history"

    loaded = SessionStore(new, sid).load()
    assert [Path(b.archive) for b in loaded.boundaries] == [here / second.name]
    [head] = [m for m in loaded.messages if is_compaction_message(m)]
    assert archive_named(head) == str(here / second.name)  # what a later compaction carries on
    assert f"the transcript it covers is at {here / second.name} (read it" in text_of(head)  # what the model reads
    assert str(old) not in text_of(head)
    # /history reads the heads of the archives and the file: the earlier compaction's too
    assert [Path(b.archive) for b in head_boundaries(here / second.name)] == [here / first.name]
    assert [Path(b.archive) for b in head_boundaries(new / f"{sid}.jsonl")] == [here / second.name]
    assert (new / f"{sid}.jsonl").read_bytes() == saved  # the file keeps what it holds


def test_an_archive_found_nowhere_or_still_where_it_was_is_named_as_saved(tmp_path: Path) -> None:
    root = tmp_path / "projects" / "app-1"
    sid, [archive] = compacted(root)
    loaded = SessionStore(root, sid).load()  # not moved: as saved
    assert loaded.boundaries[0].archive == str(archive)
    archive.unlink()  # removed by hand: nothing to point at instead, the saved path stays
    shutil.move(root, moved := tmp_path / "moved")
    again = SessionStore(moved, sid).load()
    assert again.boundaries[0].archive == str(archive)
    assert f"is at {archive} (read it" in text_of(again.messages[0])


def test_a_copy_names_its_own_archives_while_the_original_is_there(tmp_path: Path) -> None:
    """A home copied (another machine, a backup opened): each copy reads the archives it holds."""
    root = tmp_path / "home" / "projects" / "app-1"
    sid, [archive] = compacted(root)
    shutil.copytree(tmp_path / "home", tmp_path / "copy")
    copy = tmp_path / "copy" / "projects" / "app-1"
    loaded = SessionStore(copy, sid).load()
    assert loaded.boundaries[0].archive == str(copy / "compact-history" / archive.name)
    assert SessionStore(root, sid).load().boundaries[0].archive == str(archive)
