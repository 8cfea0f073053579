"""`-c` and `-r` in a project that was moved or renamed since its sessions were saved.

The sessions folder is named from the project's path, so after `mv ~/src/app ~/work/app2` both
found nothing ('no earlier session in ... to continue') and nothing said where the sessions were.
A sessions folder now records the folder it belongs to (device, inode, birth time: .project.json),
and a run in a folder without sessions of its own takes those saved for this very folder by its
old path, and says so once. Where that cannot be told (moved to another file system: a copy, a
new folder; saved by a version that recorded nothing), the refusal says in one line where the
sessions of a project of the same name are kept and how to open them here.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

from compact_agent.agent.run.options import session_root
from compact_agent.session import project_identity
from compact_agent.session.files import list_sessions, project_slug
from tests.e2e.conftest import Cli
from tests.e2e.test_rewind_after_compaction import fake
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text
from tests.reliability.harness import Zygote


def echo(req: ChatRequest) -> Reply:
    """Answers with every prompt it was sent, so a reply shows which conversation went on."""
    return Reply.text(" | ".join(message_text(m) for m in req.messages if m.get("role") == "user"))


def one_session(project: Path, home: Path, zygote: Zygote, server: FakeOpenAIServer) -> str:
    """A project with one session (one prompt, 'remember the parser'): that session's id."""
    project.mkdir(parents=True)
    done = Cli(home, project, zygote)("-p", "remember the parser", *fake(server))
    assert done.code == 0, done.stderr
    [saved] = list_sessions(home / "projects" / project_slug(project))
    return saved.stem


def test_continue_in_a_renamed_and_moved_project_goes_on_with_its_session(tmp_path: Path, zygote: Zygote) -> None:
    old, new, home = tmp_path / "src" / "app", tmp_path / "work" / "app2", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        sid = one_session(old, home, zygote, server)
        assert project_identity.recorded(home / "projects" / project_slug(old)) is not None  # the first run says
        new.parent.mkdir()
        os.rename(old, new)
        went_on = Cli(home, new, zygote)("-p", "and now?", "-c", *fake(server))
        listed = Cli(home, new, zygote)("sessions")
        again = Cli(home, new, zygote)("-p", "still there?", "-r", sid, *fake(server))
    assert went_on.code == 0, went_on.stderr
    assert went_on.stdout.strip() == "remember the parser | and now?", went_on.stdout
    assert went_on.stderr.strip() == (f"compact-agent: note: the sessions saved in {old.resolve()} are this folder's: "
                                      "it is that folder, moved or renamed since (compact-agent sessions lists them)")
    assert [p.stem for p in list_sessions(home / "projects" / project_slug(new))] == [sid]
    assert not (home / "projects" / project_slug(old)).exists()
    assert sid in listed.stdout, listed.stdout
    assert again.code == 0 and again.stdout.strip() == "remember the parser | and now? | still there?", again
    assert again.stderr == "", again.stderr  # said once: the folder is this path's now
    assert (project_identity.recorded(home / "projects" / project_slug(new)) or {}).get("path") == str(new.resolve())


def test_a_new_session_or_the_listing_in_a_moved_project_keeps_the_earlier_ones(tmp_path: Path, zygote: Zygote) -> None:
    """A run without -c takes them too, and says so; the listing alone finds them (a new session's
    folder would otherwise stand where they go, and no later -c would find them)."""
    home = tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        first = one_session(tmp_path / "one", home, zygote, server)
        os.rename(tmp_path / "one", tmp_path / "one-renamed")
        fresh = Cli(home, tmp_path / "one-renamed", zygote)("-p", "a new question", *fake(server))
        second = one_session(tmp_path / "two", home, zygote, server)
        os.rename(tmp_path / "two", tmp_path / "two-renamed")
        listed = Cli(home, tmp_path / "two-renamed", zygote)("sessions")
    assert fresh.code == 0 and fresh.stdout.strip() == "a new question", fresh
    assert fresh.stderr.strip() == (f"compact-agent: note: the sessions saved in {(tmp_path / 'one').resolve()} are this "
                                    "folder's: it is that folder, moved or renamed since (compact-agent sessions lists them)")
    ids = [p.stem for p in list_sessions(home / "projects" / project_slug(tmp_path / "one-renamed"))]
    assert len(ids) == 2 and first in ids, ids
    assert listed.code == 0 and second in listed.stdout, listed.stdout
    assert listed.stderr.strip() == (f"compact-agent: note: the sessions saved in {(tmp_path / 'two').resolve()} are "
                                     "this folder's: it is that folder, moved or renamed since (compact-agent sessions "
                                     "lists them)"), listed.stderr  # said where they are taken, as -c says it
    assert list_sessions(home / "projects" / project_slug(tmp_path / "two-renamed"))


def test_resume_by_id_in_a_moved_project_finds_the_session(tmp_path: Path, zygote: Zygote) -> None:
    old, new, home = tmp_path / "app", tmp_path / "elsewhere" / "app", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        sid = one_session(old, home, zygote, server)
        new.parent.mkdir()
        os.rename(old, new)
        resumed = Cli(home, new, zygote)("-p", "next", "-r", sid[:15], *fake(server))
    assert resumed.code == 0, resumed.stderr
    assert resumed.stdout.strip() == "remember the parser | next", resumed.stdout
    assert f"the sessions saved in {old.resolve()} are this folder's" in resumed.stderr, resumed.stderr


def test_a_new_folder_that_has_the_inode_of_a_deleted_project_is_not_that_project(
        tmp_path: Path, zygote: Zygote) -> None:
    """A folder deleted leaves its inode free, and the next folder made in the same parent often
    gets it (ext4 gives it at once): the birth time tells them apart. The deleted project's records
    are made to name the new folder's inode, as they would if that had happened, so that the test
    does not hang on the file system's choice."""
    gone, made, home = tmp_path / "app1", tmp_path / "app2", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        one_session(gone, home, zygote, server)
        folder = home / "projects" / project_slug(gone)
        was = project_identity.recorded(folder)
        shutil.rmtree(gone)
        made.mkdir()
        now = project_identity.identity(made)
        assert was is not None and now is not None and was["born"] is not None and now["born"] != was["born"]
        reused = {**was, "device": now["device"], "inode": now["inode"]}
        (folder / project_identity.FILE).write_text(json.dumps(reused))
        index = home / project_identity.INDEX
        for old in index.iterdir():
            old.unlink()
        (index / project_identity.index_name(reused)).write_text(folder.name)
        refused = Cli(home, made, zygote)("-p", "and now?", "-c", *fake(server))
    assert refused.code != 0
    assert refused.stderr.startswith(f"compact-agent: no earlier session in {made.resolve()} to continue"), refused.stderr
    assert folder.exists() and session_root(made, home) != folder


def test_a_copied_project_is_told_where_its_sessions_are_and_how_to_open_them(tmp_path: Path, zygote: Zygote) -> None:
    """Moved to another file system (here: copied, and the original removed), the folder is another
    one: its sessions are not taken, and the refusal names them and the command that opens them here."""
    old, new, home = tmp_path / "src" / "app", tmp_path / "disk" / "app", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        sid = one_session(old, home, zygote, server)
        folder = home / "projects" / project_slug(old)
        shutil.copytree(old, new)
        shutil.rmtree(old)
        refused = Cli(home, new, zygote)("-p", "and now?", "-c", *fake(server))
        picker = Cli(home, new, zygote)("-r")
        root = home / "projects" / project_slug(new)
        said = (f"1 session saved in {old.resolve()}, which is no longer there, is kept in {folder}: "
                f"mv {shlex.quote(str(folder))} {shlex.quote(str(root))} makes it this folder's")
        assert refused.code == 1 and refused.stderr.strip() == (
            f"compact-agent: no earlier session in {new.resolve()} to continue; start one without --continue; {said}"
        ), refused.stderr
        assert picker.code == 1 and said in picker.stderr, picker.stderr
        by_id = Cli(home, new, zygote)("-p", "and now?", "-r", sid, *fake(server))
        assert by_id.code == 2 and by_id.stderr.strip() == (
            f"compact-agent: no session {sid} for {new.resolve()} (compact-agent sessions lists them); {said}"
        ), by_id.stderr
        listed = Cli(home, new, zygote)("sessions")
        assert listed.code == 0 and listed.stdout.splitlines()[0] == f"no sessions in {new.resolve()}; {said}", listed
        os.rename(*(Path(p) for p in shlex.split(said.split(": mv ", 1)[1].removesuffix(" makes it this folder's"))))
        went_on = Cli(home, new, zygote)("-p", "and now?", "-c", *fake(server))
    assert went_on.code == 0 and went_on.stdout.strip() == "remember the parser | and now?", went_on
    assert [p.stem for p in list_sessions(root)] == [sid]


def test_a_renamed_folder_whose_birth_time_does_not_tell_is_named_by_its_old_path(
        tmp_path: Path, zygote: Zygote) -> None:
    """Its inode is this folder's, but no birth time was recorded (a file system that keeps none):
    not taken on the inode alone, which a folder made since may have; the line names the path."""
    old, new, home = tmp_path / "app", tmp_path / "app-renamed", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        one_session(old, home, zygote, server)
        folder = home / "projects" / project_slug(old)
        was = project_identity.recorded(folder)
        assert was is not None
        (folder / project_identity.FILE).write_text(json.dumps({**was, "born": None}))
        os.rename(old, new)
        refused = Cli(home, new, zygote)("-p", "and now?", "-c", *fake(server))
    assert refused.code == 1 and folder.exists()
    assert refused.stderr.strip().endswith(
        f"; 1 session saved in {old.resolve()}, which is no longer there, is kept in {folder}: mv "
        f"{shlex.quote(str(folder))} {shlex.quote(str(home / 'projects' / project_slug(new)))} makes it this "
        "folder's"), refused.stderr


def test_sessions_an_earlier_version_saved_are_named_by_the_projects_name(tmp_path: Path, zygote: Zygote) -> None:
    """No .project.json (an earlier version wrote none): the folder is known only by its name."""
    old, new, home = tmp_path / "src" / "my_app", tmp_path / "work" / "my_app", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        one_session(old, home, zygote, server)
        folder = home / "projects" / project_slug(old)
        (folder / project_identity.FILE).unlink()
        new.parent.mkdir()
        os.rename(old, new)
        refused = Cli(home, new, zygote)("-p", "and now?", "-c", *fake(server))
    assert refused.code == 1
    assert refused.stderr.strip().endswith(
        f"; 1 session of a project also named my_app is kept in {folder}: mv {shlex.quote(str(folder))} "
        f"{shlex.quote(str(home / 'projects' / project_slug(new)))} makes it this folder's"), refused.stderr


def test_another_checkout_of_the_same_name_is_named_with_the_command_that_goes_on_there(
        tmp_path: Path, zygote: Zygote) -> None:
    """Its sessions stay its own (the folder is still there): the line says how to go on there."""
    first, second, home = tmp_path / "a" / "app", tmp_path / "b" / "app", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        one_session(first, home, zygote, server)
        second.mkdir(parents=True)
        refused = Cli(home, second, zygote)("-p", "and now?", "-c", *fake(server))
    assert refused.code == 1
    assert refused.stderr.strip().endswith(
        f"; 1 session of another folder named app is kept for {first.resolve()}: "
        f"compact-agent --cwd {shlex.quote(str(first.resolve()))} -c goes on there"), refused.stderr
    assert list_sessions(home / "projects" / project_slug(first))  # left where it is


def test_nothing_is_said_of_a_project_of_another_name(tmp_path: Path, zygote: Zygote) -> None:
    home = tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        one_session(tmp_path / "app", home, zygote, server)
        (tmp_path / "other").mkdir()
        refused = Cli(home, tmp_path / "other", zygote)("-p", "and now?", "-c", *fake(server))
    assert refused.code == 1 and refused.stderr.strip() == (
        f"compact-agent: no earlier session in {(tmp_path / 'other').resolve()} to continue; start one without --continue")


def test_a_new_folder_at_a_renamed_projects_path_leaves_it_its_sessions(tmp_path: Path, zygote: Zygote) -> None:
    """`mv app app2; mkdir app`: the sessions saved in app are app2's (the folder they were saved
    for), not the new app's, whose path their folder is named from. The new folder's run hands them
    to app2 and says so; app2 lists them and goes on with them."""
    old, renamed, home = tmp_path / "app", tmp_path / "app2", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        sid = one_session(old, home, zygote, server)
        os.rename(old, renamed)
        old.mkdir()
        listed_new = Cli(home, old, zygote)("sessions")
        listed = Cli(home, renamed, zygote)("sessions")
        went_on = Cli(home, renamed, zygote)("-p", "and now?", "-c", *fake(server))
        fresh = Cli(home, old, zygote)("-p", "hi", "-c", *fake(server))
    assert listed_new.code == 0 and listed_new.stdout.splitlines()[0] == f"no sessions in {old.resolve()}", listed_new
    assert listed_new.stderr.strip() == (
        f"compact-agent: note: the sessions saved at this path are those of {renamed.resolve()}, the folder that was "
        f"here, renamed since; they are its own now (compact-agent --cwd {shlex.quote(str(renamed.resolve()))} "
        "sessions lists them)"), listed_new.stderr
    assert listed.code == 0 and sid in listed.stdout and listed.stderr == "", listed
    assert went_on.code == 0 and went_on.stdout.strip() == "remember the parser | and now?", went_on
    assert fresh.code == 1 and "no earlier session" in fresh.stderr, fresh
    assert [p.stem for p in list_sessions(home / "projects" / project_slug(renamed))] == [sid]
    assert (project_identity.recorded(home / "projects" / project_slug(renamed)) or {}).get("path") == \
        str(renamed.resolve())


def test_a_new_folder_at_a_moved_projects_path_does_not_make_its_sessions_its_own(
        tmp_path: Path, zygote: Zygote) -> None:
    """Moved to another parent, the folder is not looked for; the sessions are read at their path as
    they always were, but their record still names the folder they were saved for: its run, later,
    takes them (it wrote over the record, and that folder found none)."""
    old, moved, home = tmp_path / "src" / "app", tmp_path / "work" / "app2", tmp_path / "home"
    with FakeOpenAIServer(echo) as server:
        sid = one_session(old, home, zygote, server)
        moved.parent.mkdir()
        os.rename(old, moved)
        old.mkdir()
        listed_new = Cli(home, old, zygote)("sessions")
        went_on = Cli(home, moved, zygote)("-p", "and now?", "-c", *fake(server))
    assert listed_new.code == 0 and sid in listed_new.stdout, listed_new
    assert went_on.code == 0 and went_on.stdout.strip() == "remember the parser | and now?", went_on
    assert f"the sessions saved in {old.resolve()} are this folder's" in went_on.stderr, went_on.stderr
    assert [p.stem for p in list_sessions(home / "projects" / project_slug(moved))] == [sid]
