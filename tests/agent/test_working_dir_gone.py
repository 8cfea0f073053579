"""The project folder moved or deleted while the session runs: every tool says so in one line
naming the working directory, and no write makes it again holding the one file it writes (after
which every tool went on in that stray folder, and nothing said the project had gone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.safety import checked_open
from compact_agent.agent.safety.permissions import Permissions
from tests.agent.test_tools import call, make_env

GONE = "is gone (moved or deleted); no file can be read or written and no command run in it"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "a.py").write_text("print('a')\n")
    return work


def test_the_folders_of_a_write_are_not_made_up_to_a_working_directory_gone(project: Path, tmp_path: Path) -> None:
    project.rename(tmp_path / "moved")
    with pytest.raises(checked_open.WorkdirGone) as e:
        checked_open.make_folders(project.resolve() / "src" / "pkg", under=project)
    assert e.value.strerror.startswith(f"the working directory {project} {GONE}")
    assert not project.exists()
    checked_open.make_folders(tmp_path.resolve() / "elsewhere" / "deep", under=project)  # outside it: made
    assert (tmp_path / "elsewhere" / "deep").is_dir()


def test_a_working_directory_put_back_as_a_file_is_said(project: Path) -> None:
    for p in project.iterdir():
        p.unlink()
    project.rmdir()
    project.write_text("not a folder\n")
    gone = checked_open.workdir_gone(project)
    assert gone is not None and f"the working directory {project} is no longer a folder" in gone.strerror
    assert checked_open.workdir_gone(project.parent) is None


async def test_bash_in_a_working_directory_gone_says_so_and_asks_nothing(project: Path, tmp_path: Path) -> None:
    asked: list[str] = []
    env = make_env(project)
    env.permissions = Permissions(project, "ask", ask=lambda tool, detail: asked.append(detail) or "once")
    project.rename(tmp_path / "moved")
    out = await call(env, "bash", command="pwd")
    assert out.startswith(f"bash: the working directory {project} {GONE}: tell the user"), out
    assert asked == []  # no command approved that cannot run
    assert "\n" not in out


async def test_bash_whose_working_directory_goes_while_it_is_approved(project: Path, tmp_path: Path) -> None:
    env = make_env(project)

    def ask(tool: str, detail: str) -> str:
        project.rename(tmp_path / "moved")
        return "once"

    env.permissions = Permissions(project, "ask", ask=ask)
    out = await call(env, "bash", command="pwd")
    assert out.startswith(f"bash: the working directory {project} {GONE}"), out


@pytest.mark.parametrize("tool,args", [
    ("read_file", {"path": "a.py"}),
    ("edit_file", {"path": "a.py", "old_string": "a", "new_string": "b"}),
    ("grep", {"pattern": "print"}),
], ids=lambda x: x if isinstance(x, str) else "")
async def test_a_file_tool_in_a_working_directory_gone_names_it(project: Path, tmp_path: Path, tool: str,
                                                                 args: dict[str, str]) -> None:
    env = make_env(project)
    project.rename(tmp_path / "moved")
    out = await call(env, tool, **args)
    assert f"the working directory {project} {GONE}" in out and "\n" not in out, out
    assert not project.exists()


async def test_a_missing_file_outside_the_working_directory_gone_is_not_found(project: Path, tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    env = make_env(project)
    env.permissions = Permissions(project, "yes", extra_dirs=[tmp_path / "shared"])
    project.rename(tmp_path / "moved")
    out = await call(env, "read_file", path=str(tmp_path / "shared" / "none.py"))
    assert out.startswith("File not found:") and "working directory" not in out, out


@pytest.mark.parametrize("path", ["b.py", "src/pkg/b.py"])
async def test_a_write_in_a_working_directory_gone_makes_it_not_again(project: Path, tmp_path: Path, path: str) -> None:
    """write_file made the folder again holding only the file, and every tool went on in it."""
    env = make_env(project)
    project.rename(tmp_path / "moved")
    out = await call(env, "write_file", path=path, content="B = 1\n")
    assert out == f"could not write {path}: the working directory {project} {GONE}: tell the user, who can put it " \
                  "back, or start compact-agent again where the project is now", out
    assert not project.exists()
    assert sorted(p.name for p in (tmp_path / "moved").iterdir()) == ["a.py"]


@pytest.mark.parametrize("args", [{"pattern": "*.py"}, {"pattern": "src/**/*.py"}, {"pattern": "*.py", "path": "src"}],
                         ids=["here", "below", "path"])
async def test_glob_in_a_working_directory_gone_names_it(project: Path, tmp_path: Path, args: dict[str, str]) -> None:
    """glob said 'Directory not found: .', as if the model had named a wrong folder."""
    env = make_env(project)
    project.rename(tmp_path / "moved")
    out = await call(env, "glob", **args)
    assert out == f"glob: the working directory {project} {GONE}: tell the user, who can put it back, or start " \
                  "compact-agent again where the project is now", out


@pytest.mark.parametrize("args", [{"pattern": "print"}, {"pattern": "print", "path": "src"}], ids=["here", "path"])
async def test_grep_in_a_working_directory_gone_names_it(project: Path, tmp_path: Path, args: dict[str, str]) -> None:
    """grep said '. not found: the working directory … is gone …' where glob and bash say 'glob: …'."""
    env = make_env(project)
    project.rename(tmp_path / "moved")
    out = await call(env, "grep", **args)
    assert out == f"grep: the working directory {project} {GONE}: tell the user, who can put it back, or start " \
                  "compact-agent again where the project is now", out


async def test_a_glob_of_a_missing_folder_is_still_not_found(project: Path) -> None:
    out = await call(make_env(project), "glob", pattern="*.py", path="nowhere")
    assert out.startswith("Directory not found: nowhere"), out


async def test_write_file_in_a_working_directory_gone_asks_nothing(project: Path, tmp_path: Path) -> None:
    """In ask mode the user was asked 'create b.py?' for a write that could only be refused after."""
    asked: list[str] = []
    env = make_env(project)
    env.permissions = Permissions(project, "ask", ask=lambda tool, detail: asked.append(detail) or "once")
    project.rename(tmp_path / "moved")
    out = await call(env, "write_file", path="b.py", content="B = 1\n")
    assert out.startswith(f"could not write b.py: the working directory {project} {GONE}"), out
    assert asked == []
    assert not project.exists()
