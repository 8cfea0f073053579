"""grep and glob skip folders of installed packages (`node_modules`, a virtual environment) only
where they hold what their name says: a folder git tracks files in is the project's source and is
searched (typeshed's `stdlib/venv/`, code checked in under `node_modules`), and so is a `venv` that
is no virtual environment; one skipped is named when the search found nothing, and a path the
model names inside one is searched."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.search import glob_impl, grep_impl

from .test_tools import make_env

pytestmark = pytest.mark.usefixtures("home")  # a HOME of the test's own (conftest.py)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo,
                   check=True, capture_output=True)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def typeshed(root: Path, *init: str) -> ToolEnv:
    """A repository tracking `stdlib/venv/__init__.pyi` and code under `node_modules/app/`, with an
    untracked virtual environment `.venv` beside them (git init `init`: the options given)."""
    root.mkdir()
    git(root, "init", "-q", *init)
    write(root, {"stdlib/venv/__init__.pyi": "def create(env_dir: str) -> None: ...\n",
                 "stdlib/os/__init__.pyi": "def getcwd() -> str: ...\n",
                 "node_modules/app/server.js": "function startServer() {}\n",
                 # a long name before node_modules/: in an index of version 4, the next name is
                 # written as over 127 bytes dropped from it, a number of two bytes
                 f"docs/{'x' * 200}.md": "notes\n",
                 ".venv/pyvenv.cfg": "home = /usr/bin\n",
                 ".venv/lib/site.py": "def create(): pass\n"})
    git(root, "add", "stdlib", "node_modules", "docs")
    git(root, "commit", "-q", "-m", "one")
    return make_env(root)


def test_folders_git_tracks_are_searched_whatever_their_name(tmp_path: Path) -> None:
    env = typeshed(tmp_path / "typeshed")
    assert grep_impl(env, r"def create\(") == "stdlib/venv/__init__.pyi:1:def create(env_dir: str) -> None: ..."
    assert grep_impl(env, "startServer") == "node_modules/app/server.js:1:function startServer() {}"
    assert glob_impl(env, "**/*.pyi").splitlines() == ["stdlib/os/__init__.pyi", "stdlib/venv/__init__.pyi"]
    assert glob_impl(env, "**/server.js") == "node_modules/app/server.js"


@pytest.mark.parametrize("init", [
    pytest.param((), id="index-v2"),
    pytest.param(("--object-format=sha256",), id="sha256"),
])
@pytest.mark.parametrize("change", [
    pytest.param(None, id="as-written"),
    pytest.param(("update-index", "--index-version", "4"), id="version-4"),
    pytest.param(("update-index", "--split-index"), id="split"),
])
def test_each_index_git_writes_is_read(tmp_path: Path, init: tuple[str, ...],
                                       change: tuple[str, ...] | None) -> None:
    env = typeshed(tmp_path / "typeshed", *init)
    if change is not None:
        git(env.cwd, *change)
        write(env.cwd, {"node_modules/app/more.js": "function startServer2() {}\n"})
        git(env.cwd, "add", "node_modules")  # with a split index, the new entry is in the index, the rest shared
    if change and "--split-index" in change:
        assert list((env.cwd / ".git").glob("sharedindex.*"))
    assert grep_impl(env, "startServer").splitlines() == [
        *(["node_modules/app/more.js:1:function startServer2() {}"] if change else []),
        "node_modules/app/server.js:1:function startServer() {}"]
    assert grep_impl(env, r"def create\(") == "stdlib/venv/__init__.pyi:1:def create(env_dir: str) -> None: ..."


def test_a_linked_work_tree_reads_its_own_index(tmp_path: Path) -> None:
    env = typeshed(tmp_path / "typeshed")
    git(env.cwd, "worktree", "add", "-q", str(tmp_path / "linked"))
    linked = make_env(tmp_path / "linked")
    assert (linked.cwd / ".git").is_file()
    assert grep_impl(linked, "startServer") == "node_modules/app/server.js:1:function startServer() {}"


def test_skipped_folders_are_named_when_nothing_is_found(tmp_path: Path) -> None:
    env = typeshed(tmp_path / "typeshed")
    write(env.cwd, {"web/node_modules/left-pad/index.js": "module.exports = leftPad\n",
                    "src/__pycache__/m.py": "leftPad\n"})
    said = "[2 folders of installed packages not searched: .venv/, web/node_modules/; give one as the path to search it]"
    assert grep_impl(env, "leftPad").splitlines() == ["No matches for 'leftPad' in .", said]
    assert glob_impl(env, "**/index.js").splitlines() == [
        "No files match '**/index.js' under .", said.replace("searched", "listed")]
    # found something: not said (most projects have them)
    assert grep_impl(env, "getcwd") == "stdlib/os/__init__.pyi:1:def getcwd() -> str: ..."
    # a folder git ignores, named as installed packages, is skipped and named the same way
    (env.cwd / ".gitignore").write_text("web/\n.venv/\n")
    assert grep_impl(env, "leftPad").splitlines()[1:] == [
        "[1 entry git ignores not searched: web/; give one as the path to search it]",
        "[1 folder of installed packages not searched: .venv/; give one as the path to search it]"]


def test_a_path_named_inside_a_skipped_folder_is_searched(tmp_path: Path) -> None:
    env = typeshed(tmp_path / "typeshed")
    write(env.cwd, {"node_modules/app/node_modules/dep/index.js": "function startServer() {}\n"})
    assert grep_impl(env, "def create", ".venv") == ".venv/lib/site.py:1:def create(): pass"
    assert grep_impl(env, "def create", ".venv/lib/site.py") == ".venv/lib/site.py:1:def create(): pass"
    assert glob_impl(env, ".venv/**/*.py") == ".venv/lib/site.py"
    assert grep_impl(env, "startServer", "node_modules/app/node_modules") == \
        "node_modules/app/node_modules/dep/index.js:1:function startServer() {}"


def test_outside_a_repository_a_venv_that_is_no_virtual_environment_is_searched(work: Path) -> None:
    write(work, {"venv/__init__.py": "def create(env_dir): pass\n",
                 "tools/venv/pyvenv.cfg": "home = /usr/bin\n", "tools/venv/lib/x.py": "def create(): pass\n",
                 "node_modules/dep/index.js": "def create\n"})
    env = make_env(work)
    assert grep_impl(env, "def create").splitlines() == [
        "venv/__init__.py:1:def create(env_dir): pass"]
    assert grep_impl(env, "no such name").splitlines()[1] == (
        "[2 folders of installed packages not searched: node_modules/, tools/venv/; give one as the path to search it]")


def test_caches_and_version_control_folders_are_never_searched_nor_named(tmp_path: Path) -> None:
    env = typeshed(tmp_path / "typeshed")
    write(env.cwd, {"src/__pycache__/m.py": "needle\n", ".mypy_cache/x.py": "needle\n", ".git/x.py": "needle\n"})
    git(env.cwd, "add", "-f", "src/__pycache__/m.py", ".mypy_cache/x.py")
    assert grep_impl(env, "needle").splitlines() == [
        "No matches for 'needle' in .",
        "[1 folder of installed packages not searched: .venv/; give one as the path to search it]"]


def test_a_damaged_index_tracks_nothing(tmp_path: Path) -> None:
    env = typeshed(tmp_path / "typeshed")
    index = env.cwd / ".git" / "index"
    data = index.read_bytes()
    for damaged in (data[:40], data[:12] + b"\xff" * 80, b"DIRC\x00\x00\x00\x07" + data[8:], b""):
        index.write_bytes(damaged)
        assert grep_impl(env, "startServer").splitlines() == [
            "No matches for 'startServer' in .",
            "[2 folders of installed packages not searched: .venv/, node_modules/; give one as the path to search it]"]
