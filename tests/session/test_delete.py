"""`compact-agent sessions --delete ID` and `--delete-older-than DAYS` remove a session and every file
it owns: its file, the transcripts archived before each compaction, its side folder (events, usage,
checkpoints and their file backups, …) and the record of its sent prompts. Nothing removed them: a
secret pasted into a session stayed on disk for good, and an install grew without end.

A session another process holds is not removed; an id that names no session or several removes
nothing; no id and no link in the data dir reaches a file outside it or another session's files."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from compact_agent.agent.run.options import session_root
from compact_agent.cli import app
from compact_agent.session import owned_files, removal
from compact_agent.session.files import project_slug
from compact_agent.session.orphans import orphans
from compact_agent.session.removal import size_text
from compact_agent.session.store import SessionStore
from compact_agent.session.typed import FOLDER
from tests.e2e.test_rewind_after_compaction import editor
from tests.ui.repl_driver import drive

DAY = 86_400


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two sessions of the REPL, each of which wrote a file twice (checkpoint backups), was
    compacted (an archive) and sent prompts (their record): made once, copied for each test."""
    tmp = tmp_path_factory.mktemp("made")
    (tmp / "project").mkdir()
    (tmp / "project" / "hello.txt").write_text("zero\n")
    with pytest.MonkeyPatch.context() as mp:
        for k in [k for k in os.environ if k.startswith("COMPACT_AGENT_")]:
            mp.delenv(k)
        mp.setenv("COMPACT_AGENT_CONFIG", str(tmp / "none.toml"))

        async def two() -> None:
            for _ in range(2):
                await asyncio.wait_for(drive(tmp, editor, ["write one\r", "write two\r", "/compact\r"],
                                             keys_answer=True, permission_mode="yes"), 90)

        asyncio.run(two())
    return tmp


class Sessions:
    def __init__(self, tmp: Path) -> None:
        self.home = tmp / "home"
        self.root = self.home / "projects" / project_slug(tmp / "project")
        self.a, self.b = sorted(p.stem for p in self.root.glob("*.jsonl"))


@pytest.fixture
def s(made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sessions]:
    shutil.copytree(made / "project", tmp_path / "project", symlinks=True)
    shutil.copytree(made / "home", tmp_path / "home", symlinks=True)
    projects = tmp_path / "home" / "projects"
    [old] = projects.iterdir()
    old.rename(projects / project_slug(tmp_path / "project"))  # the folder is named after the directory's path
    session_root(tmp_path / "project", tmp_path / "home")  # and says it is that directory's, as a run there does
    for k in [k for k in os.environ if k.startswith("COMPACT_AGENT_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path / "project")
    yield Sessions(tmp_path)


def files(top: Path) -> dict[str, bytes | str | None]:
    """Every file, folder and link under `top`: a file's bytes, a link's target, None for a folder."""
    out: dict[str, bytes | str | None] = {}
    for folder, dirs, names in os.walk(top):
        for name in dirs + names:
            p = Path(folder) / name
            key = str(p.relative_to(top))
            out[key] = os.readlink(p) if p.is_symlink() else None if p.is_dir() else p.read_bytes()
    return out


def sessions(*args: str) -> Result:
    return CliRunner().invoke(app, ["sessions", *args])


def entries(history: bytes) -> list[bytes]:
    """The prompt history's entries, each from the empty line before its comment line (what comes
    before the first too)."""
    out = [b""]
    for line in history.splitlines(keepends=True):
        if line.startswith(b"#"):
            blank = out[-1].endswith(b"\n\n") or out[-1] == b"\n"
            out[-1] = out[-1][:-1] if blank else out[-1]
            out.append(b"\n" if blank else b"")
        out[-1] += line
    return out


def age(root: Path, session_id: str, days: float, now: float | None = None) -> None:
    """Make every file of the session (its file, archives, side folder, sent record) `days` days old."""
    when = (time.time() if now is None else now) - days * DAY
    for p in [root / f"{session_id}.jsonl", root / FOLDER / f"{session_id}.jsonl",
              *(root / "compact-history").glob(f"{session_id}-*"), *(root / session_id).rglob("*"), root / session_id]:
        if os.path.lexists(p):
            os.utime(p, (when, when), follow_symlinks=False)


def test_a_session_is_removed_with_everything_it_owns_and_nothing_else(s: Sessions) -> None:
    before = files(s.home)
    owned = {k: v for k, v in before.items() if s.a in k}
    # What a real run left of it: the session file, an archive, checkpoint backups, events, the sent prompts.
    rel = s.root.relative_to(s.home)
    assert str(rel / f"{s.a}.jsonl") in owned
    assert any(k.startswith(str(rel / "compact-history" / s.a)) for k in owned), sorted(owned)
    assert str(rel / FOLDER / f"{s.a}.jsonl") in owned
    assert any("checkpoints/blobs/" in k for k in owned) and str(rel / s.a / "events.jsonl") in owned
    side = [k for k, v in owned.items() if k.startswith(str(rel / s.a) + "/") and v is not None]
    # The lines typed in it are in the project's prompt history, each entry naming its session.
    history = str(rel / "prompt_history")
    typed = before[history]
    assert isinstance(typed, bytes) and typed.count(f" session={s.a}\n".encode()) == 3
    kept = b"".join(e for e in entries(typed) if f" session={s.a}\n".encode() not in e)
    freed = sum(len(v) for v in owned.values() if isinstance(v, bytes)) + len(typed) - len(kept)

    res = sessions("--delete", s.a)
    assert res.exit_code == 0, res.output
    assert res.stdout == (f"removed session {s.a}: the session file, 1 archive, {len(side)} side files, "
                          f"the record of its sent prompts, 3 prompts in the prompt history ({size_text(freed)} freed)\n")
    # the other session as it was, its prompts in the history byte for byte
    assert files(s.home) == {**{k: v for k, v in before.items() if s.a not in k}, history: kept}
    assert kept.count(f" session={s.b}\n".encode()) == 3
    listed = sessions()
    assert s.a not in listed.stdout and s.b in listed.stdout


def test_a_start_of_an_id_names_one_session_and_an_unknown_or_ambiguous_one_removes_nothing(s: Sessions) -> None:
    before = files(s.home)
    common = os.path.commonprefix([s.a, s.b])
    for args, said in [
        (["--delete", common], f"compact-agent: {common} is the start of 2 sessions ({s.a}, {s.b}); give more of the id\n"),
        (["--delete", "nosuch"], "compact-agent: no session nosuch for this directory (compact-agent sessions lists them)\n"),
        (["--delete", s.b, "--delete", "nosuch"],  # one bad id: none removed
         "compact-agent: no session nosuch for this directory (compact-agent sessions lists them)\n"),
        (["--delete", ""], "compact-agent: --delete needs a session id (compact-agent sessions lists them)\n"),
    ]:
        res = sessions(*args)
        assert (res.exit_code, res.stdout, res.stderr) == (1, "", said), args
        assert files(s.home) == before, args

    res = sessions("--delete", s.a[:len(common) + 1], "--delete", s.a)  # the same one twice: removed once
    assert res.exit_code == 0, res.output
    assert res.stdout.count("removed session") == 1 and s.a in res.stdout
    assert not (s.root / f"{s.a}.jsonl").exists() and (s.root / f"{s.b}.jsonl").exists()


def test_hostile_ids_and_links_never_reach_outside_the_data_dir(s: Sessions, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    for name in ("session.jsonl", "archive.jsonl", "sent.jsonl", "folder/kept.txt", "hard.txt"):
        (outside / name).write_text(f"not compact-agent's: {name}\n")
    # A session whose every file is a link out of the data dir (to a session's lines: another
    # program's file under a session's name is never removed, test below).
    shutil.copy(s.root / f"{s.b}.jsonl", outside / "session.jsonl")
    (s.root / "evil.jsonl").symlink_to(outside / "session.jsonl")
    (s.root / "evil").symlink_to(outside / "folder")
    (s.root / "compact-history" / "evil-20260101-000000-000000.jsonl").symlink_to(outside / "archive.jsonl")
    (s.root / FOLDER / "evil.jsonl").symlink_to(outside / "sent.jsonl")
    # A real session holding a link to a folder outside, and a hard link to a file outside.
    (s.root / s.a / "tool-results" / "link").symlink_to(outside / "folder")
    os.link(outside / "hard.txt", s.root / s.a / "tool-results" / "hard.txt")
    outside_before, before = files(outside), files(s.home)
    rel = s.root.relative_to(s.home).parts

    for hostile in ["..", "../..", ".", f"../{s.root.name}/{s.a}", f"{s.a}/..", f"{s.a}/../{s.b}", str(s.root / s.a),
                    "/etc/passwd", "compact-history", FOLDER, "prompt_history", "*", f".{s.a}", "\\"]:
        res = sessions("--delete", hostile)
        assert res.exit_code == 1 and res.stdout == "" and res.stderr.count("\n") == 1, (hostile, res.output)
        assert files(s.home) == before and files(outside) == outside_before, hostile

    # A session file under the name of a folder all sessions share: that folder is not its side folder.
    shutil.copy(s.root / f"{s.b}.jsonl", s.root / "compact-history.jsonl")
    res = sessions("--delete", "compact-history")
    assert res.exit_code == 0 and res.stdout.startswith("removed session compact-history: the session file ("), res.output
    assert files(s.home) == before and files(outside) == outside_before

    # Named like another session's file, or with a file (not a folder) under its name: those stay.
    shutil.copy(s.root / f"{s.b}.jsonl", s.root / f"{s.b}.jsonl.jsonl")
    shutil.copy(s.root / f"{s.b}.jsonl", s.root / "other.jsonl")
    (s.root / "other").write_text("not a side folder\n")
    for name in (f"{s.b}.jsonl", "other"):
        res = sessions("--delete", name)
        assert res.exit_code == 0 and res.stdout.startswith(f"removed session {name}: the session file ("), res.output
    assert files(s.home) == {**before, "/".join([*rel, "other"]): b"not a side folder\n"}
    assert files(outside) == outside_before

    res = sessions("--delete", "evil")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("removed session evil: the session file, 1 archive, 1 side file, the record of "
                                 "its sent prompts"), res.stdout
    res = sessions("--delete", s.a)
    assert res.exit_code == 0, res.output
    assert files(outside) == outside_before  # the links went, not what they point to
    history = "/".join([*rel, "prompt_history"])
    after = files(s.home)
    assert after.pop(history) == b"".join(e for e in entries(before.pop(history)) if s.a.encode() not in e)  # type: ignore[arg-type]
    assert after == {**{k: v for k, v in before.items() if s.a not in k and "evil" not in k},
                     "/".join([*rel, "other"]): b"not a side folder\n"}


def test_a_folder_of_sessions_that_is_a_link_out_of_the_data_dir_is_refused(s: Sessions, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    s.root.rename(elsewhere)
    s.root.symlink_to(elsewhere)
    before = files(elsewhere)
    res = sessions("--delete", s.a)
    assert res.exit_code == 1 and res.stderr == (f"compact-agent: {s.root} is a symbolic link or lies outside "
                                                 f"{s.home / 'projects'}: nothing is removed through it\n")
    assert files(elsewhere) == before


def test_a_session_in_use_is_not_removed(s: Sessions) -> None:
    store = SessionStore(s.root, s.a)
    store.lock()  # as a running compact-agent holds it
    age(s.root, s.a, 1)  # a session written in the last minute is not judged by its age
    age(s.root, s.b, 1)
    try:
        before = files(s.home)
        res = sessions("--delete", s.a)
        assert (res.exit_code, res.stdout) == (1, "")
        assert res.stderr == f"compact-agent: session {s.a} is in use by another compact-agent process; not removed\n"
        assert files(s.home) == before

        res = sessions("--delete-older-than", "0")  # the others go; the one in use is said and skipped
        assert res.exit_code == 0, res.output
        assert res.stdout.startswith(f"removed session {s.b}: ") and res.stdout.count("\n") == 1
        assert res.stderr == f"compact-agent: session {s.a} is in use by another compact-agent process; not removed\n"
        assert {k: v for k, v in files(s.home).items() if s.a in k} == {k: v for k, v in before.items() if s.a in k}
    finally:
        store.unlock()
    assert sessions("--delete", s.a).exit_code == 0  # let go of, it can be removed
    assert not any(s.a in k for k in files(s.home))


def test_sessions_older_than_the_days_given_are_removed(s: Sessions) -> None:
    age(s.root, s.a, 40)
    age(s.root, s.b, 10)
    res = sessions("--delete-older-than", "30")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(f"removed session {s.a}: ") and res.stdout.count("\n") == 1
    assert not any(s.a in k for k in files(s.home)) and (s.root / f"{s.b}.jsonl").exists()
    res = sessions("--delete-older-than", "30")
    assert (res.exit_code, res.stdout) == (0, "no sessions older than 30 days\n")


def test_the_age_is_measured_by_the_clock_given(tmp_path: Path) -> None:
    t = 2_000_000_000.0
    for sid, age in (("new", 1), ("old", 40), ("middle", 10)):
        SessionStore(tmp_path, sid).append_meta(x=1)
        os.utime(tmp_path / f"{sid}.jsonl", (t - age * DAY, t - age * DAY))
    assert removal.older_than(tmp_path, 30, now=lambda: t) == ["old"]
    assert removal.older_than(tmp_path, 5, now=lambda: t) == ["old", "middle"]  # oldest first
    assert removal.older_than(tmp_path, 0, now=lambda: t) == ["old", "middle", "new"]
    assert removal.older_than(tmp_path, 30, now=lambda: t + 25 * DAY) == ["old", "middle"]


def test_what_to_remove_is_given_once(s: Sessions) -> None:
    before = files(s.home)
    res = sessions("--delete", s.a, "--delete-older-than", "1")
    assert (res.exit_code, res.stderr) == (2, "compact-agent: --delete and --delete-older-than both choose what to "
                                              "remove; give one of them\n")
    res = sessions("--all", "--delete-older-than", "0")
    assert res.exit_code == 2 and "--all is for the listing" in res.stderr
    res = sessions("--all", "--delete", s.a)  # it spoke of --delete-older-than, which was not given
    assert (res.exit_code, res.stderr) == (2, "compact-agent: --all is for the listing: --delete removes the session "
                                              "it names, also one only --all lists (another directory's: "
                                              "compact-agent --cwd DIR sessions --delete ID)\n")
    res = sessions("--delete-older-than", "-1")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "Traceback" not in res.output
    assert files(s.home) == before
    shown = sessions("--help").stdout
    assert "--delete ID" in shown and "--delete-older-than DAYS" in shown


def test_temp_files_a_killed_writer_left_of_the_session_go_with_it(s: Sessions) -> None:
    for name in (f".{s.a}.jsonl.0a1b2c3d.tmp", f"compact-history/.{s.a}-20261201-120000-000001.jsonl.0a1b2c3d.tmp",
                 f".{s.b}.jsonl.0a1b2c3d.tmp", f"compact-history/.{s.b}-20261201-120000-000001.jsonl.0a1b2c3d.tmp"):
        (s.root / name).write_text("half a rewrite")
    res = sessions("--delete", s.a)
    assert res.exit_code == 0 and ", 2 temp files, 3 prompts in the prompt history (" in res.stdout, res.output
    assert not any(s.a in k for k in files(s.home))
    assert (s.root / f".{s.b}.jsonl.0a1b2c3d.tmp").exists()
    assert (s.root / f"compact-history/.{s.b}-20261201-120000-000001.jsonl.0a1b2c3d.tmp").exists()


def test_a_dry_run_says_what_would_go_and_removes_nothing(s: Sessions) -> None:
    """`--dry-run` counts as a removal does (the same files, the same bytes) and removes none."""
    before = files(s.home)
    dry = sessions("--delete", s.a, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert files(s.home) == before
    assert dry.stdout.startswith(f"would remove session {s.a}: the session file, 1 archive, ")
    age(s.root, s.a, 40)
    old = sessions("--delete-older-than", "30", "--dry-run")
    assert (old.exit_code, old.stdout) == (0, dry.stdout) and files(s.home) == before
    real = sessions("--delete", s.a)
    assert real.exit_code == 0, real.output
    assert real.stdout == dry.stdout.replace("would remove", "removed").replace(" to free)", " freed)")
    alone = sessions("--dry-run")
    assert (alone.exit_code, alone.stderr) == (2, "compact-agent: --dry-run goes with --delete or "
                                                  "--delete-older-than: it says what they would remove\n")


def test_a_file_under_a_session_name_that_is_no_session_is_never_removed(s: Sessions) -> None:
    """Another program's file under a session's name (not_a_session.py) is not ours: `--delete`
    names it and removes nothing, `--delete-older-than` passes over it."""
    stray = s.root / "20200101-000000-abcdef.jsonl"
    stray.write_bytes(b"another program's data\n")
    old = time.time() - 400 * DAY
    os.utime(stray, (old, old))
    before = files(s.home)
    res = sessions("--delete", stray.stem)
    assert (res.exit_code, res.stdout) == (1, "")
    assert res.stderr == (f"compact-agent: {stray} is not a session file (no line of it is a session entry); it "
                          "is left as it is\n")
    assert files(s.home) == before
    res = sessions("--delete-older-than", "300")
    assert (res.exit_code, res.stdout) == (0, "no sessions older than 300 days\n")
    assert stray.read_bytes() == b"another program's data\n"


def test_a_session_is_as_old_as_the_newest_of_its_files(s: Sessions) -> None:
    """A session whose file was last written long ago but whose side files were written lately (a
    checkpoint, notes, an archive) is not old: its age is that of the newest of its files."""
    t = time.time()
    for newer in ["compact-history", s.a, FOLDER]:
        age(s.root, s.a, 40, now=t)
        age(s.root, s.b, 40, now=t)
        path = next(p for p in sorted((s.root / newer).rglob("*")) if p.is_file() and s.a in str(p))
        os.utime(path, (t - 2 * DAY, t - 2 * DAY))
        assert removal.older_than(s.root, 30, now=lambda: t) == [s.b], path
        assert removal.older_than(s.root, 1, now=lambda: t) == [s.b, s.a], path  # oldest first
    res = sessions("--delete-older-than", "0")
    assert res.exit_code == 0 and res.stdout.count("removed session ") == 2, res.output


def test_what_is_left_of_a_session_whose_file_is_gone_goes_with_the_old_sessions(s: Sessions) -> None:
    """A session file removed by hand left its archives, side folder, sent record and prompts behind,
    which no `--delete` could name: `--delete-older-than` removes them as old as that, and says so.
    A folder in the folder of sessions that holds no session's files is not ours, and stays."""
    rel = s.root.relative_to(s.home)
    (s.root / f"{s.a}.jsonl").unlink()
    (s.root / f".{s.a}.jsonl.0a1b2c3d.tmp").write_text("half a rewrite")
    (s.root / "photos").mkdir()
    (s.root / "photos" / "cat.jpg").write_bytes(b"not ours")
    (s.root / "compact-history" / "notes.txt").write_text("not an archive\n")
    age(s.root, s.a, 25)
    then = time.time() - 25 * DAY
    os.utime(s.root / f".{s.a}.jsonl.0a1b2c3d.tmp", (then, then))
    old = time.time() - 400 * DAY
    for p in [s.root / "photos", s.root / "photos" / "cat.jpg", s.root / "compact-history" / "notes.txt"]:
        os.utime(p, (old, old))
    before = files(s.home)
    owned = {k: v for k, v in before.items() if s.a in k}
    assert any(k.startswith(str(rel / "compact-history" / s.a)) for k in owned) and str(rel / s.a / "lock") in owned
    side = [k for k, v in owned.items() if k.startswith(str(rel / s.a) + "/") and v is not None]

    res = sessions("--delete-older-than", "30")  # too new for that
    assert (res.exit_code, res.stdout) == (0, "no sessions older than 30 days\n") and files(s.home) == before
    dry = sessions("--delete-older-than", "20", "--dry-run")
    assert dry.exit_code == 0 and files(s.home) == before, dry.output
    assert dry.stdout.startswith(f"would remove what was left of session {s.a}, whose session file is gone: 1 archive, "
                                 f"{len(side)} side files, the record of its sent prompts, 1 temp file, 3 prompts in "
                                 "the prompt history ("), dry.stdout
    assert dry.stdout.count("\n") == 1
    res = sessions("--delete-older-than", "20")
    assert res.exit_code == 0, res.output
    assert res.stdout == dry.stdout.replace("would remove", "removed").replace(" to free)", " freed)")
    after = files(s.home)
    typed = after[str(rel / "prompt_history")]
    assert not any(s.a in k for k in after) and isinstance(typed, bytes) and f"session={s.a}".encode() not in typed
    assert {k: v for k, v in after.items() if "prompt_history" not in k} == \
        {k: v for k, v in before.items() if s.a not in k and "prompt_history" not in k}  # photos, notes, s.b stay
    assert (s.root / "photos" / "cat.jpg").read_bytes() == b"not ours"
    res = sessions("--delete-older-than", "20")
    assert (res.exit_code, res.stdout) == (0, "no sessions older than 20 days\n")


def test_the_prompts_of_a_session_leave_the_prompt_history_with_it(s: Sessions) -> None:
    """A secret pasted into a session stayed in the project's prompt history after the session was
    removed, one up-arrow away. Its entries go; another session's, and one an earlier version wrote
    (which names no session) long before it, stay byte for byte; the REPL reads the history as before."""
    from datetime import datetime

    from compact_agent.session import prompt_history
    from compact_agent.ui.prompt_input import RedactedHistory

    history = s.root / "prompt_history"
    history.write_bytes(b"\n# 2026-01-01 10:00:00.000000\n+typed by an earlier version\n")
    at = datetime(2026, 12, 4, 12, 0)
    prompt_history.append(history, "deploy with\nhunter2-secret-token", s.a, now=lambda: at)
    prompt_history.append(history, "another session's line", s.b, now=lambda: at)
    prompt_history.append(history, "/compact", s.a, now=lambda: at)
    assert list(RedactedHistory(str(history)).load_history_strings()) == [
        "/compact", "another session's line", "deploy with\nhunter2-secret-token", "typed by an earlier version"]

    dry = sessions("--delete", s.a, "--dry-run")
    assert dry.exit_code == 0 and ", 2 prompts in the prompt history (" in dry.stdout, dry.output
    assert b"hunter2" in history.read_bytes()
    res = sessions("--delete", s.a)
    assert res.exit_code == 0 and ", 2 prompts in the prompt history (" in res.stdout, res.output
    assert history.read_bytes() == (b"\n# 2026-01-01 10:00:00.000000\n+typed by an earlier version\n"
                                    b"\n# 2026-12-04 12:00:00 session=" + s.b.encode() + b"\n+another session's line\n")
    assert list(RedactedHistory(str(history)).load_history_strings()) == [
        "another session's line", "typed by an earlier version"]
    assert history.stat().st_mode & 0o777 == 0o600
    assert not [p for p in s.root.iterdir() if p.name.endswith(".tmp")]


def test_what_is_left_of_a_session_whose_file_is_gone_is_listed_and_removed_by_its_id(s: Sessions) -> None:
    """`sessions` listed sessions alone: what a session file removed by hand left behind (archives,
    side files, prompts) was unseen, and `--delete ID` said there was no such session. It is listed
    apart, with its size and how to remove it, and `--delete` takes its id or a start of it."""
    (s.root / f"{s.a}.jsonl").unlink()
    age(s.root, s.a, 2)
    dry = sessions("--delete", s.a, "--dry-run")
    assert dry.exit_code == 0 and dry.stdout.startswith(f"would remove what was left of session {s.a}, "), dry.output
    what = dry.stdout.split(": ", 1)[1].rsplit(" (", 1)[0]
    size = dry.stdout.rsplit(" (", 1)[1].removesuffix(" to free)\n")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(owned_files.last_written(s.root, s.a)))

    res = sessions()
    assert res.exit_code == 0, res.output
    out = res.stdout.splitlines()
    assert len(out) == 4 and out[0].startswith(f"  {s.b}  "), res.stdout
    assert out[1:] == ["leftovers of 1 session whose file is gone (-r cannot open it; "
                       "compact-agent sessions --delete ID removes one):",
                       f"  {s.a}  {when}  {size}: {what}",
                       f"sessions folder: {s.root} (this directory's; under COMPACT_AGENT_HOME)"]
    assert "1 archive, " in what and "3 prompts in the prompt history" in what
    assert sessions("--all").stdout.splitlines()[1:] == out[1:]

    res = sessions("--delete", s.a[:-2])  # a start of its id, as for a session
    assert res.exit_code == 0 and res.stdout == dry.stdout.replace("would remove", "removed").replace(
        " to free)", " freed)"), res.output
    assert not any(s.a in k for k in files(s.home))
    assert sessions().stdout.splitlines() == [out[0], out[-1]]


def test_a_session_a_run_holds_before_it_saved_anything_is_no_leftover(s: Sessions) -> None:
    """A run's session that saved nothing yet has its side folder and no file: not a leftover. Nor is
    one written within the last minute (a run may be starting in it); the clock is given."""
    from compact_agent.session.leftovers import leftovers

    (s.root / f"{s.a}.jsonl").unlink()
    store = SessionStore(s.root, s.a)
    store.lock()
    age(s.root, s.a, 2)
    try:
        assert orphans(s.root) == [s.a] and leftovers(s.root) == []
        assert "leftover" not in sessions().stdout
    finally:
        store.unlock()
    assert [x.session_id for x in leftovers(s.root)] == [s.a]
    t = owned_files.last_written(s.root, s.a)
    assert leftovers(s.root, now=lambda: t + 30) == []
    assert [x.session_id for x in leftovers(s.root, now=lambda: t + 61)] == [s.a]
