"""What is neither a file nor a folder among the paths: skipped with a note, as a file that is no
transcript is. A broken link in a folder was left out without a word; a pipe given beside other
paths stopped the whole run with exit 2."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from compact_agent.replay.finding import FindError, find_files

from ._helpers import printed_apart
from .test_cli_analyze import cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks")

CHAT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"}]


def folder(tmp_path: Path) -> Path:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "chat.json").write_text(json.dumps(CHAT))
    (tmp_path / "t" / "gone.jsonl").symlink_to(tmp_path / "moved-away.jsonl")
    os.mkfifo(tmp_path / "t" / "pipe")
    os.mkfifo(tmp_path / "beside")
    return tmp_path / "t"


def test_a_broken_link_and_a_pipe_in_a_folder_are_skipped_with_a_note(tmp_path: Path) -> None:
    files, notes, _ = find_files([folder(tmp_path)])
    assert files == [tmp_path / "t" / "chat.json"]
    assert notes == [f"skipped {tmp_path / 't' / 'gone.jsonl'}: a broken link (to {tmp_path / 'moved-away.jsonl'})",
                     f"skipped {tmp_path / 't' / 'pipe'}: not a regular file or a folder (a pipe or a device: not read)"]


def test_a_pipe_beside_other_paths_is_skipped_and_the_run_goes_on(tmp_path: Path) -> None:
    out = cli("t", "beside", "-s", "ours", "--json", cwd=folder(tmp_path).parent)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [t["path"] for t in data["transcripts"]] == ["t/chat.json"]
    assert data["skipped"] == ["skipped t/gone.jsonl: a broken link (to " + str(tmp_path / "moved-away.jsonl") + ")",
                               "skipped t/pipe: not a regular file or a folder (a pipe or a device: not read)",
                               "skipped beside: not a regular file or a folder (a pipe or a device: not read)"]
    assert out.stderr.splitlines() == [f"compact-agent: {note}" for note in data["skipped"]]


def test_nothing_but_a_pipe_is_one_line_saying_why(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    out = cli("pipe", cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("compact-agent: no transcripts found: pipe: not a regular file or a folder")


def test_a_missing_path_is_still_an_error_and_a_broken_link_says_where_it_led(tmp_path: Path) -> None:
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "moved-away.jsonl")
    with pytest.raises(FindError, match="no such file or directory: .*gone.jsonl is a broken link"):
        find_files([tmp_path / "gone.jsonl"])
    with pytest.raises(FindError, match="no such file or directory"):
        find_files([tmp_path / "typo.jsonl"])


def test_what_the_search_skipped_is_counted_by_the_progress_bar_as_the_notes_name_it(tmp_path: Path, monkeypatch) -> None:
    """The bar said '1 skipped' while the notes named three paths: the broken link and the pipe the
    search passed over were not counted, only the file read and found to be no transcript. A folder
    that cannot be listed was passed over without a note."""
    from compact_agent.replay import batch, report

    root = folder(tmp_path)
    (root / "notes.txt").write_text("not a transcript\n")
    (root / "locked").mkdir()
    (root / "locked" / "hidden.json").write_text(json.dumps(CHAT))
    real_scandir = os.scandir

    def scandir(path: object = ".") -> object:  # as for a folder without read permission (root reads it)
        if isinstance(path, str | os.PathLike) and Path(path) == root / "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = find_files([root])
    assert found.files == [root / "chat.json", root / "notes.txt"]
    assert f"skipped {root / 'locked'}: a folder that cannot be read (Permission denied)" in found.notes
    assert found.skipped == len(found.notes) == 3

    bars: list[batch.Progress] = []

    class Shown(batch.Progress):
        def __init__(self, *a: object, **k: object) -> None:
            super().__init__(*a, **k)  # type: ignore[arg-type]
            bars.append(self)

    monkeypatch.setattr(batch, "Progress", Shown)
    analysis = asyncio.run(report.analyze([root], window=8_000, strategies=["ours"]))
    assert len(analysis.skipped) == 4  # the three above and notes.txt, not a transcript
    assert (bars[0].done, bars[0].total, bars[0].skipped) == (5, 5, 4)  # every file found is done


def test_a_file_reached_twice_is_replayed_once(tmp_path: Path) -> None:
    """`analyze t/chat.json t` replayed chat.json twice and said 'Total over 2 transcripts'; so did
    a link to it in the folder (the file goes by its own name)."""
    root = tmp_path / "t"
    root.mkdir()
    (root / "chat.json").write_text(json.dumps(CHAT))
    (root / "alias.json").symlink_to(root / "chat.json")
    assert find_files([root / "chat.json", root, tmp_path / "t" / ".." / "t" / "chat.json"]).files == [root / "chat.json"]
    (root / "other.json").write_text(json.dumps(CHAT))
    out = cli("t", "t/other.json", "-s", "ours", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [t["path"] for t in json.loads(out.stdout)["transcripts"]] == ["t/chat.json", "t/other.json"]


def test_nothing_found_counts_the_paths_skipped_not_the_notes(tmp_path: Path) -> None:
    """One note says all of compact-history/'s archives: 'no transcripts found: … (and 1 more
    skipped)' stood for a broken link and three archives."""
    root = tmp_path / "t"
    (root / "compact-history").mkdir(parents=True)
    for i in range(3):
        (root / "compact-history" / f"a{i}.jsonl").write_text("{}\n")
    (root / "gone.jsonl").symlink_to(tmp_path / "moved-away.jsonl")
    out = cli("t", cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("compact-agent: no transcripts found: t/gone.jsonl: a broken link")
    assert "(and 3 more skipped)" in out.stderr, out.stderr
    (root / "gone.jsonl").unlink()  # the archives' note alone, then a file read that is no transcript
    (root / "notes.txt").write_text("not a transcript\n")
    out = cli("t", cwd=tmp_path)
    assert out.stderr.startswith("compact-agent: no transcripts found: 3 compaction archives in compact-history/")
    assert "(and 1 more skipped)" in out.stderr, out.stderr


def test_a_project_folder_of_sessions_lists_no_side_files_it_shares(tmp_path: Path) -> None:
    """`analyze` of a project's folder of sessions: the files its sessions share, `prompt_history` and
    `sent_prompts/<id>.jsonl`, are ours, left out as the side folders are, not each 'skipped …: not
    a transcript'. A file of that name where no session is is read as any other."""
    from compact_agent.replay.finding import find_files

    session = tmp_path / "20261204-093204-ba1915.jsonl"
    session.write_text('{"v": 1, "id": "a", "parent": null, "time": "t", "kind": "meta", "meta": {}}\n')
    (tmp_path / "prompt_history").write_text("\n# 2026-12-04\n+hi\n")
    (tmp_path / "sent_prompts").mkdir()
    (tmp_path / "sent_prompts" / session.name).write_text('{"checkpoint": 0, "line": "hi"}\n')
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "prompt_history").write_text("x\n")
    found = find_files([tmp_path])
    assert sorted(found.files) == [session, tmp_path / "other" / "prompt_history"] and found.notes == []


def test_a_link_to_a_folder_is_searched_and_a_loop_of_links_ends(tmp_path: Path) -> None:
    """A folder whose history was linked in from elsewhere (`projects/work -> /data/work`) was
    passed over without a word: 'no transcripts found'. Links back up (`.`, a parent) end no loop."""
    (tmp_path / "kept" / "deep").mkdir(parents=True)
    (tmp_path / "kept" / "deep" / "chat.json").write_text(json.dumps(CHAT))
    root = tmp_path / "projects"
    root.mkdir()
    (root / "work").symlink_to(tmp_path / "kept", target_is_directory=True)
    (root / "self").symlink_to(root, target_is_directory=True)
    (root / "work" / "deep" / "up").symlink_to(tmp_path, target_is_directory=True)
    found = find_files([root])
    assert found.files == [root / "work" / "deep" / "chat.json"] and found.notes == []
    out = cli("projects", "-s", "ours", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [t["path"] for t in json.loads(out.stdout)["transcripts"]] == ["projects/work/deep/chat.json"]
    (tmp_path / "kept" / "compact-history").mkdir()
    (tmp_path / "kept" / "compact-history" / "a.jsonl").write_text("{}\n")
    both = find_files([root, tmp_path / "kept"])  # the folder, and a link to it: its archive counted once
    assert both.notes == ["skipped 1 compaction archive in compact-history/: each session file is replayed in full "
                          "from them"] and both.skipped == 1


def test_a_loop_of_links_is_said_to_be_one_not_a_broken_link(tmp_path: Path) -> None:
    """a.jsonl -> b.jsonl -> a.jsonl was 'a broken link (to b.jsonl)': the person looked for a file
    that had moved, where none had."""
    (tmp_path / "a.jsonl").symlink_to("b.jsonl")
    (tmp_path / "b.jsonl").symlink_to("a.jsonl")
    (tmp_path / "chat.json").write_text(json.dumps(CHAT))
    assert find_files([tmp_path]).notes == [
        f"skipped {tmp_path / 'a.jsonl'}: a link into a loop of links (to b.jsonl): it reaches no file",
        f"skipped {tmp_path / 'b.jsonl'}: a link into a loop of links (to a.jsonl): it reaches no file"]
    out = cli("a.jsonl", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr == "compact-agent: cannot read a.jsonl: it is a link into a loop of links (to b.jsonl): it reaches no file\n"


def test_nothing_found_names_the_formats_only_where_one_could_be_wrong(tmp_path: Path) -> None:
    """A Claude Code session with no answer in it was 'no transcripts found: s.jsonl: no model
    responses to replay; the analyzer reads Claude Code or Codex JSONL, …', as if its format had not
    been read."""
    from compact_agent.replay.report import nothing_found

    (tmp_path / "s.json").write_text(json.dumps([{"role": "user", "content": "hi"}]))
    out = cli("s.json", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr == "compact-agent: no transcripts found: s.json: no model responses to replay\n"
    assert nothing_found(["skipped a.txt: not a transcript"]).endswith("; the analyzer reads " + nothing_found([])
                                                                      .removeprefix("no transcripts found (")[:-1])


def test_many_json_files_that_are_no_transcripts_are_said_in_one_line(tmp_path: Path) -> None:
    """A folder holding a thousand package.json or settings files beside its transcripts wrote a
    thousand 'skipped …: not a transcript' lines on stderr; a few are still said one a line."""
    from compact_agent.replay.finding import MANY_SAID

    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "chat.json").write_text(json.dumps(CHAT))
    for i in range(MANY_SAID + 5):
        (tmp_path / "t" / f"conf{i:02}.json").write_text('{"setting": 1}')
    (tmp_path / "t" / "notes.txt").write_text("x")
    out = cli("t", "-s", "ours", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["skipped"]) == MANY_SAID + 6  # --json: one per file, as before
    assert out.stderr.splitlines() == [
        f"compact-agent: skipped {MANY_SAID + 5} .json, .jsonl or .traj files that are not transcripts (conf00.json, "
        "conf01.json, conf02.json, …; --json lists each)",
        "compact-agent: skipped t/notes.txt: not a transcript"]
    for extra in (tmp_path / "t").glob("conf1*.json"):
        extra.unlink()
    few = cli("t", "-s", "ours", cwd=tmp_path).stderr.splitlines()
    assert few[0] == "compact-agent: skipped t/conf00.json: not a transcript" and len(few) == 11


@pytest.mark.parametrize("beside", ["sent_prompts", "prompt_history"])
def test_a_pipe_named_as_a_session_beside_the_files_sessions_share_is_not_opened(tmp_path: Path, beside: str) -> None:
    """The search reads the first line of a session a `sent_prompts/` record or a `prompt_history` may
    be of, to tell whether they are ours: a pipe named `*.jsonl` there was opened to read, and the
    search waited for a writer for ever. It is skipped, as a pipe anywhere else is. The search runs in a
    process of its own, so that the wait would fail this test rather than hang the suite."""
    (tmp_path / "chat.json").write_text(json.dumps(CHAT))
    if beside == "sent_prompts":
        (tmp_path / "sent_prompts").mkdir()
        (tmp_path / "sent_prompts" / "s1.jsonl").write_text('{"checkpoint": 0, "line": "hi"}\n')
        os.mkfifo(tmp_path / "s1.jsonl")
    else:
        (tmp_path / "prompt_history").write_text("\n# 2026-12-04\n+hi\n")
        os.mkfifo(tmp_path / "z.jsonl")
    search = ("import json, sys; from pathlib import Path; from compact_agent.replay.finding import find_files; "
              "found = find_files([Path(sys.argv[1])]); print(json.dumps([[str(f) for f in found.files], found.notes]))")
    files, notes = printed_apart(search, str(tmp_path), "the search")
    pipe = tmp_path / ("s1.jsonl" if beside == "sent_prompts" else "z.jsonl")
    assert notes == [f"skipped {pipe}: not a regular file or a folder (a pipe or a device: not read)"]
    side = tmp_path / ("sent_prompts/s1.jsonl" if beside == "sent_prompts" else "prompt_history")
    assert files == [str(tmp_path / "chat.json"), str(side)]  # no session of ours beside it: read as any file
