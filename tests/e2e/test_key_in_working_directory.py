"""A working directory whose path holds the provider key (`~/proj/sk-proj-…`) puts it in no request,
no output and no file or folder name: the system prompt names the directory with the key redacted,
the sessions folder is named with `REDACTED` in its place (and the hash of the whole path), and so
the archive path /compact prints, and the compaction message gives the model, is one that exists.
Sessions saved under the names earlier versions gave that folder, the key whole in them, are moved
to the new name and resumed. A path that holds the key for another reason (the home folder inside
that directory, an instruction file there) is printed with it redacted."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from tests.e2e.conftest import Cli, CliResult
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .scripted import is_summary_request

KEY = "sk-proj-Zq8XkT3vRw9LmN2pQa7sYb4cTT11"
SECRETS = (KEY, KEY.removeprefix("sk-proj-"))


def keyed_cli(tmp_path: Path, cli: Cli) -> Cli:
    cwd = tmp_path / "work" / KEY
    cwd.mkdir(parents=True)
    return Cli(home=cli.home, cwd=cwd, zygote=cli.zygote)


def answer(req) -> Reply:
    return Reply.text("<summary>the work so far</summary>" if is_summary_request(req) else "answer " * 400)


def run(c: Cli, server: FakeOpenAIServer, *args: str) -> CliResult:
    res = c(*args, "--model", "fake-model", "--base-url", server.base_url, env={"OPENAI_API_KEY": KEY})
    assert res.code == 0, res.stderr
    return res


def leaks(home: Path, server: FakeOpenAIServer, results: list[CliResult]) -> list[str]:
    """Where the key is: a request, an output stream, a file's or folder's name, a file."""
    found = [f"request {r.index}" for r in server.requests if any(s in json.dumps(r.body) for s in SECRETS)]
    found += [f"output {i}" for i, r in enumerate(results) if any(s in r.stdout + r.stderr for s in SECRETS)]
    for p in home.rglob("*"):
        if any(s in str(p.relative_to(home)) for s in SECRETS):
            found.append(f"name {p.relative_to(home)}")
        elif p.is_file() and any(s.encode() in p.read_bytes() for s in SECRETS):
            found.append(f"file {p.relative_to(home)}")
    return found


def older_name(path: Path) -> str:
    """The sessions folder's name as versions before this one gave it: the key whole."""
    whole = str(path.resolve())
    readable = re.sub(r"[^A-Za-z0-9]+", "-", whole).strip("-")[-100:]
    return f"{readable}-{hashlib.sha256(whole.encode()).hexdigest()[:12]}"


def test_a_key_in_the_working_directory_reaches_no_request_output_or_name(tmp_path: Path, cli: Cli) -> None:
    c = keyed_cli(tmp_path, cli)
    with FakeOpenAIServer(answer, api_key=KEY) as server:
        results = [run(c, server, "-p", f"question {i} " + "q " * 40, *(["-c"] if i else [])) for i in range(3)]
        assert "question 0" in server.requests[-1].all_text()  # -c went on with the session
        system = server.requests[0].messages[0]
        assert system["role"] == "system" and f"{c.cwd.parent}/[REDACTED]" in system["content"], system
        compacted = run(c, server, "-c", "-p", "/compact", "--verbose")
        results += [compacted, run(c, server, "-c", "-p", "after", "--verbose")]
        results.append(listed := c("sessions", env={"OPENAI_API_KEY": KEY}))
    shown = re.search(r"full transcript archived at (\S+)", compacted.stdout)
    assert shown and Path(shown[1]).is_file(), compacted.stdout  # a path that exists, as printed
    told = re.search(r"the transcript it covers is at (\S+) \(read it", server.requests[-1].all_text())
    assert told and Path(told[1]) == Path(shown[1]), server.requests[-1].all_text()
    (folder,) = (c.home / "projects").iterdir()
    [_, where] = listed.stdout.strip().splitlines()  # the session's row, then the folder it is kept in
    assert listed.code == 0 and where.startswith(f"sessions folder: {folder} ("), listed.stdout + listed.stderr
    assert "REDACTED" in folder.name and folder.name != older_name(c.cwd)
    assert leaks(c.home, server, results) == []


def test_sessions_saved_under_the_older_name_are_moved_and_resumed(tmp_path: Path, cli: Cli) -> None:
    c = keyed_cli(tmp_path, cli)
    with FakeOpenAIServer(answer, api_key=KEY) as server:
        results = [run(c, server, "-p", "the first question")]
        (folder,) = (c.home / "projects").iterdir()
        older = folder.rename(folder.with_name(older_name(c.cwd)))  # as an earlier version left it
        asked = len(server.requests)
        results.append(run(c, server, "-c", "-p", "go on"))
        assert "the first question" in server.requests[asked].all_text(), "-c did not find the session"
    assert not older.exists() and [p.name for p in (c.home / "projects").iterdir()] == [folder.name]
    assert leaks(c.home, server, results) == []


def test_sessions_saved_under_the_name_without_the_hash_are_moved_and_resumed(tmp_path: Path, cli: Cli) -> None:
    c = keyed_cli(tmp_path, cli)
    with FakeOpenAIServer(answer, api_key=KEY) as server:
        results = [run(c, server, "-p", "the first question")]
        (folder,) = (c.home / "projects").iterdir()
        oldest = re.sub(r"[^A-Za-z0-9]+", "-", str(c.cwd.resolve())).strip("-")[-120:]
        folder.rename(folder.with_name(oldest))
        asked = len(server.requests)
        results.append(run(c, server, "-c", "-p", "go on"))
        assert "the first question" in server.requests[asked].all_text(), "-c did not find the session"
    assert [p.name for p in (c.home / "projects").iterdir()] == [folder.name]
    assert leaks(c.home, server, results) == []


def test_paths_under_a_home_inside_that_directory_are_printed_with_the_key_redacted(tmp_path: Path, cli: Cli) -> None:
    """The home folder itself in the directory named with the key (COMPACT_AGENT_HOME=./home): the
    path of the archive is printed, by /compact and by --verbose, with the key redacted."""
    inside = keyed_cli(tmp_path, cli)
    c = Cli(home=inside.cwd / "home", cwd=inside.cwd, zygote=cli.zygote)
    with FakeOpenAIServer(answer, api_key=KEY) as server:
        results = [run(c, server, "-p", f"question {i} " + "q " * 40, *(["-c"] if i else [])) for i in range(3)]
        results.append(compacted := run(c, server, "-c", "-p", "/compact", "--verbose"))
    assert f"full transcript archived at {c.cwd.parent}/[REDACTED]/home/projects/" in compacted.stdout
    assert [i for i, r in enumerate(results) if any(s in r.stdout + r.stderr for s in SECRETS)] == []



def test_memory_names_an_instruction_file_there_with_the_key_redacted(tmp_path: Path, cli: Cli) -> None:
    c = keyed_cli(tmp_path, cli)
    (c.cwd / "AGENTS.md").write_text("Run the tests with make test.\n")
    with FakeOpenAIServer(answer, api_key=KEY) as server:
        shown = run(c, server, "-p", "/memory")
    assert f"{c.cwd.parent}/[REDACTED]/AGENTS.md" in shown.stdout, shown.stdout
    assert not any(s in shown.stdout + shown.stderr for s in SECRETS)


def test_the_sessions_are_found_whatever_key_a_run_has(tmp_path: Path, cli: Cli) -> None:
    """The folder's name does not depend on the keys a run knows: a session saved with the key in the
    path as the run's key is listed and resumed by a run with another key (another provider's, or
    the key rotated), and listed by one with none; no folder is made with the key in its name."""
    other = "sk-proj-Hb5NmW2qLx8RtV4cKp9sZd3fGG77"
    c = keyed_cli(tmp_path, cli)
    with FakeOpenAIServer(answer) as server:
        run(c, server, "-p", "the first question")
        (folder,) = (c.home / "projects").iterdir()
        (saved,) = (p.stem for p in folder.glob("*.jsonl"))
        for env in ({"OPENAI_API_KEY": other}, {}):
            listed = c("sessions", env=env)
            assert listed.code == 0 and saved in listed.stdout, (env, listed.stdout + listed.stderr)
        asked = len(server.requests)
        went_on = c("-c", "-p", "go on", "--model", "fake-model", "--base-url", server.base_url,
                    env={"OPENAI_API_KEY": other})
        assert went_on.code == 0, went_on.stderr
        assert "the first question" in server.requests[asked].all_text(), "-c did not find the session"
    assert [p.name for p in (c.home / "projects").iterdir()] == [folder.name]
    names = [str(p.relative_to(c.home)) for p in c.home.rglob("*")]
    assert not any(s in n for s in SECRETS for n in names), names
