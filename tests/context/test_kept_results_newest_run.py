"""A compaction keeps a result the model is using as its call's newest run answered it.

The results the model reached back into are kept verbatim after the summary. A test run whose
`FAILED` line the model had cited (it named the failing test while fixing it) was kept so, and the
run of the same command after the fix (`5 passed`) was summarised away: the next request held the
summary, then the old `FAILED` output, then the last answer, and nothing said that output was old.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import FunctionModel

from compact_agent.context import CompactionSettings, Compactor, ContextManager, InMemoryStore, Limits
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.plumbing.markers import KEY
from compact_agent.context.plumbing.rounds import unpaired

from .fixing_agent import PASSED, fix_then_read, provider

WHOLE_MARK = {"compact_agent": {"synthetic": "restore", "whole": True}}  # Restorer.reread: the file uncut


async def test_the_result_kept_is_the_newest_run_of_its_call() -> None:
    cm = ContextManager(window=32_000, store=InMemoryStore(), settings=CompactionSettings(compaction_records=False))
    history = await fix_then_read(cm)

    compacted = await cm.compact_now(history, model=FunctionModel(provider))

    returns = [p for m in compacted if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    test_runs = [p.content for p in returns if p.tool_name == "run_tests"]
    assert test_runs == [PASSED]  # the newest run, once; not the FAILED one the model had cited
    assert unpaired(compacted) == (set(), set())
    assert compacted[-1] == history[-1]  # the last answer, verbatim


def _runs(outputs: list[str], prefix: str = "g") -> list[ModelMessage]:
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("look around")])]
    for i, out in enumerate(outputs):
        msgs += [ModelResponse(parts=[ToolCallPart("glob", {"pattern": "**/*.py"}, tool_call_id=f"{prefix}{i}")]),
                 ModelRequest(parts=[ToolReturnPart("glob", out, tool_call_id=f"{prefix}{i}")])]
    return msgs


def _kept(compactor: Compactor, summarized: list[ModelMessage], after: Sequence[ModelMessage] = ()) -> list[str]:
    kept = compactor.kept_results(summarized, after=after) if after else compactor.kept_results(summarized)
    return [m.parts[0].tool_call_id for m in kept
            if isinstance(m, ModelRequest) and isinstance(m.parts[0], ToolReturnPart)]


def test_an_older_listing_in_use_gives_way_to_the_newest_run_even_when_that_one_is_not() -> None:
    """A glob listing from early on (turn 2) stood right before a much later answer, although the
    same glob had been run since, after files were written, with another listing."""
    msgs = _runs(["src/a.py", "src/a.py", "src/a.py\nsrc/new.py"])
    only_first = Compactor(Limits.for_window(200_000, 8_192), hot=lambda call_id: call_id == "g0")
    assert _kept(only_first, msgs) == ["g2"]
    every = Compactor(Limits.for_window(200_000, 8_192), hot=lambda call_id: True)
    assert _kept(every, msgs) == ["g2"]
    # The newest run kept verbatim after the summarised part: nothing older is kept beside it.
    tail = _runs(["src/a.py\nsrc/new.py\nsrc/b.py"], prefix="t")[1:]
    assert _kept(every, msgs, tail) == []
    # Other calls are not runs of it: another pattern is kept as it was.
    other: list[ModelMessage] = [ModelResponse(parts=[ToolCallPart("glob", {"pattern": "*.md"}, tool_call_id="m")]),
                                 ModelRequest(parts=[ToolReturnPart("glob", "README.md", tool_call_id="m")])]
    assert _kept(every, [*msgs[:3], *other, *msgs[3:]]) == ["m", "g2"]


def test_a_read_of_a_file_restored_whole_is_not_kept_beside_it(tmp_path: Path) -> None:
    """A file changed since the previous compaction comes back read from disk now; a read of it the
    model had cited was kept as well, older than the copy restored after the summary."""
    from compact_agent.context.compaction.restore import whole

    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("look at it")]),
                                ModelResponse(parts=[ToolCallPart("read_file", {"path": "src/a.py"}, tool_call_id="r0")]),
                                ModelRequest(parts=[ToolReturnPart("read_file", "x = 1", tool_call_id="r0")])]
    every = Compactor(Limits.for_window(200_000, 8_192), hot=lambda call_id: True)
    assert _kept(every, msgs) == ["r0"]
    kept = every.kept_results(msgs, restored={Path("src/a.py")})
    assert kept == []
    # Restored whole: a file whose copy the restorer marked so; one it cut (unmarked) may lack the read.
    restored: list[ModelMessage] = [
        ModelResponse(parts=[ToolCallPart("read_file", {"path": name}, tool_call_id=f"back_{name}")
                             for name in ("small.py", "big.py")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "x = 1\n", tool_call_id="back_small.py", metadata=WHOLE_MARK),
                            ToolReturnPart("read_file", "x = 1\n[truncated]", tool_call_id="back_big.py",
                                           metadata={"compact_agent": {"synthetic": "restore"}})])]
    assert whole(restored, lambda s: tmp_path / s) == {tmp_path / "small.py"}


async def test_a_compaction_keeps_no_read_of_a_file_it_restores(tmp_path: Path) -> None:
    files = [tmp_path / f"f{i}.txt" for i in range(2)]
    for f in files:
        f.write_text("edited since\n")

    def reread(paths: list[Path], n: int) -> list[ModelMessage]:
        return [ModelResponse(parts=[ToolCallPart("read_file", {"path": str(p)}, tool_call_id=f"back{k}")
                                     for k, p in enumerate(paths)]),
                ModelRequest(parts=[ToolReturnPart("read_file", p.read_text(), tool_call_id=f"back{k}", metadata=WHOLE_MARK)
                                    for k, p in enumerate(paths)])]

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Edited f0.</summary>"

    restorer = Restorer(recent_files=lambda: files[::-1], reread=reread, resolve=lambda s: tmp_path / s)
    compactor = Compactor(Limits.for_window(32_000, 4_000), restorer, hot=lambda call_id: call_id in ("c0", "c1"))
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("edit f0")])]
    for i, name in enumerate(["f0.txt", "f1.txt", *(f"pad{k}.txt" for k in range(6))]):
        msgs += [ModelResponse(parts=[ToolCallPart("read_file", {"path": name}, tool_call_id=f"c{i}")]),
                 ModelRequest(parts=[ToolReturnPart("read_file", f"old text of {name} " + "y" * 4_000,
                                                    tool_call_id=f"c{i}")])]
    msgs[5:5] = [ModelResponse(parts=[ToolCallPart("edit_file", {"path": "f0.txt"}, tool_call_id="e0")]),
                 ModelRequest(parts=[ToolReturnPart("edit_file", "ok", tool_call_id="e0")])]
    msgs.append(ModelResponse(parts=[TextPart("Done.")]))

    result = await compactor.compact(msgs, summarize=summarize, archive=lambda: None)

    calls = [(p.tool_call_id, p.args) for m in result.messages if isinstance(m, ModelResponse)
             for p in m.parts if isinstance(p, ToolCallPart)]
    assert ("back0", {"path": str(files[0])}) in calls  # f0 changed: restored from disk
    assert all(args != {"path": "f0.txt"} for _, args in calls)  # and its old read not kept beside it
    assert ("c1", {"path": "f1.txt"}) in calls  # a read of a file not restored is kept
    assert unpaired(result.messages) == (set(), set())


BUILD_ERRORS = "error: src/x.c:12: undefined reference to `foo'\n" * 3
# Re-runs that did not happen: each tells nothing of what the build now says.
NOT_RUN: dict[str, ToolReturnPart | RetryPromptPart] = {
    "denied": ToolReturnPart("bash", "The user denied this command.", tool_call_id="b1", outcome="denied"),
    "timed out": ToolReturnPart("bash", "Command timed out after 120 s.", tool_call_id="b1", outcome="failed"),
    "retried": ToolReturnPart("bash", "sandbox refused", tool_call_id="b1", outcome="retried"),
    "refused by the toolset": ToolReturnPart("bash", "bash failed: not allowed here", tool_call_id="b1",
                                             metadata={"compact_agent": {"tool": {"error": True}}}),
}


def _build(rerun: ModelRequestPart, call_id: str = "b1") -> list[ModelMessage]:
    return [ModelResponse(parts=[ToolCallPart("bash", {"command": "make build"}, tool_call_id=call_id)]),
            ModelRequest(parts=[rerun])]


def _cited_build() -> list[ModelMessage]:
    return [ModelRequest(parts=[UserPromptPart("why does the build fail?")]),
            ModelResponse(parts=[ToolCallPart("bash", {"command": "make build"}, tool_call_id="b0")]),
            ModelRequest(parts=[ToolReturnPart("bash", BUILD_ERRORS, tool_call_id="b0")])]


@pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")  # pydantic-ai 2.62 still sends it
def test_a_rerun_that_did_not_happen_leaves_the_run_in_use_kept() -> None:
    """The model cited the errors of `make build`; the command run again was denied, timed out or
    retried: only the denial was kept (or nothing, for a retry prompt), not the errors in use."""
    cited = Compactor(Limits.for_window(200_000, 8_192), hot=lambda call_id: call_id == "b0")
    every = Compactor(Limits.for_window(200_000, 8_192), hot=lambda call_id: True)
    retry = RetryPromptPart("sandbox refused", tool_name="bash", tool_call_id="b1")
    for name, rerun in [*NOT_RUN.items(), ("a retry prompt", retry)]:
        for compactor in (cited, every):
            assert _kept(compactor, [*_cited_build(), *_build(rerun)]) == ["b0"], name
        # Nor when that run is among the messages kept verbatim after the summarised part.
        assert _kept(cited, _cited_build(), _build(rerun)) == ["b0"], name
    # A run that succeeded takes the place of the one in use, in the summarised part or after it.
    done = ToolReturnPart("bash", "built: out/x", tool_call_id="b1")
    assert _kept(cited, [*_cited_build(), *_build(done)]) == ["b1"]
    assert _kept(cited, _cited_build(), _build(done)) == []
    # A failure (the build's errors, exit code 2) gives way to a later one: it is as old as a success would be.
    failed = ToolReturnPart("bash", "Exit code 2\n" + BUILD_ERRORS, tool_call_id="b0", outcome="failed")
    again = ToolReturnPart("bash", "Exit code 2\nerror: src/y.c:3: `bar' undeclared", tool_call_id="b1",
                           outcome="failed")
    assert _kept(cited, [*_cited_build()[:2], ModelRequest(parts=[failed]), *_build(again)]) == ["b1"]
    assert _kept(cited, [*_cited_build()[:2], ModelRequest(parts=[failed])], _build(again)) == []
    assert _kept(cited, [*_cited_build()[:2], ModelRequest(parts=[failed]), *_build(NOT_RUN["denied"])]) == ["b0"]
    # The newest run that succeeded, past a later one that did not.
    denied = ToolReturnPart("bash", "The user denied this command.", tool_call_id="b2", outcome="denied")
    runs = [*_cited_build(), *_build(done), *_build(denied, "b2")]
    assert _kept(cited, runs) == ["b1"]


def test_the_agents_refusal_of_a_rerun_leaves_the_failing_build_in_use_kept() -> None:
    """The agent's own tools return a failing build and a refused command alike, as text with the
    error mark (ToolFailure); only the refusal is marked as a call that did not run (NotRun). The
    refused re-run of a failing `make build` replaced the build errors the model was citing."""
    error = {KEY: {"tool": {"error": True}}}
    cited = Compactor(Limits.for_window(200_000, 8_192), hot=lambda call_id: call_id == "b0")
    build = ToolReturnPart("bash", BUILD_ERRORS + "exit code 2", tool_call_id="b0", metadata=error)
    history = [*_cited_build()[:2], ModelRequest(parts=[build])]
    refused = ToolReturnPart("bash", "permission denied: bash(make build) was declined", tool_call_id="b1",
                             metadata={KEY: {"tool": {"error": True, "ran": False}}})
    assert _kept(cited, [*history, *_build(refused)]) == ["b0"]
    assert _kept(cited, history, _build(refused)) == ["b0"]
    # A failing build run again (the same mark, it ran) still takes the place of the one before it.
    again = ToolReturnPart("bash", "error: y.c:3\nexit code 2", tool_call_id="b1", metadata=error)
    assert _kept(cited, [*history, *_build(again)]) == ["b1"]



def test_a_rerun_killed_at_its_timeout_leaves_the_failing_build_in_use_kept() -> None:
    """A failing `make build` the model was citing, run again and killed at the bash tool's timeout
    (or as the turn was stopped): the cut-short output says nothing of the build, yet as one failure
    after another it took the place of the build errors. The toolset marks it `"finished": false`."""
    error = {KEY: {"tool": {"error": True}}}
    cited = Compactor(Limits.for_window(200_000, 8_192), hot=lambda call_id: call_id == "b0")
    build = ToolReturnPart("bash", BUILD_ERRORS + "exit code: 2", tool_call_id="b0", metadata=error)
    history = [*_cited_build()[:2], ModelRequest(parts=[build])]
    killed = ToolReturnPart("bash", "cc -c x.c\nexit code: 137 (timed out after 120s: killed by SIGKILL, with its "
                            "child processes)", tool_call_id="b1", metadata={KEY: {"tool": {"error": True, "finished": False}}})
    assert _kept(cited, [*history, *_build(killed)]) == ["b0"]
    assert _kept(cited, history, _build(killed)) == ["b0"]
    # Nor in place of a run that worked; and a run that worked after it still replaces the one in use.
    assert _kept(cited, [*_cited_build(), *_build(killed)]) == ["b0"]
    done = ToolReturnPart("bash", "built: out/x\nexit code: 0", tool_call_id="b2")
    assert _kept(cited, [*history, *_build(killed), *_build(done, "b2")]) == ["b2"]
