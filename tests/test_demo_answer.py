"""`make demo`: its answer is true of the files it read; the analysis of its session fits its usage."""

from __future__ import annotations

import fcntl
import io
import os
import re
import tempfile
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from rich.console import Console

from compact_agent import demo
from tests.fixed_part import fixed_part

REPO = Path(__file__).resolve().parents[1]
PIPELINE = "src/compact_agent/context/pipeline.py"


def first_docstring_line(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    first = lines[0].strip()
    assert first.startswith('"""'), path
    return first[3:].split('"""')[0].strip() or lines[1].strip()


def run_demo(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = io.StringIO()
    mp = pytest.MonkeyPatch()
    mp.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("demo")))
    mp.setattr(demo.render, "make_console", lambda markup=False: Console(file=out, width=400, markup=markup))
    mp.delenv("COMPACT_AGENT_DEMO_KEEP", raising=False)
    try:
        demo.main()
    finally:
        mp.undo()
    return out.getvalue()


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo run once for the whole test run (5 s of CPU): under `pytest -n N` the tests below
    fall to different workers, and each ran it again. The first worker to ask runs it and writes
    its output into the run's shared temporary folder, under a lock the others wait on."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return run_demo(tmp_path_factory)
    saved = tmp_path_factory.getbasetemp().parent / "demo-output.txt"  # the workers' folders are in it
    with open(saved.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not saved.exists():
            made = saved.with_suffix(".tmp")
            made.write_text(run_demo(tmp_path_factory), encoding="utf-8")
            made.replace(saved)
        return saved.read_text(encoding="utf-8")


def test_a_cleared_result_does_not_undo_what_the_survey_noted():
    """The layers clear an old read to "[Old tool result content cleared]": the stand-in keeps the
    docstring its own note recorded when it read the file, as a model would."""
    surveyor = demo.ScriptedSurveyor([PIPELINE])
    call = ToolCallPart("read_file", {"path": PIPELINE, "limit": 400}, tool_call_id="c1")
    read = '     1\t"""ContextManager: the capability.\n     2\t\n'
    messages = [
        ModelRequest(parts=[UserPromptPart(demo.TASK)]),
        ModelResponse(parts=[TextPart("Starting the survey."), call]),
        ModelRequest(parts=[ToolReturnPart("read_file", read, tool_call_id="c1")]),
    ]
    assert surveyor._done(messages) == {PIPELINE: "ContextManager: the capability."}
    noted = ModelResponse(parts=[TextPart("Surveyed so far: pipeline.py=ContextManager: the capability.")])
    cleared = ModelRequest(parts=[ToolReturnPart("read_file", "[Old tool result content cleared]", tool_call_id="c1")])
    assert surveyor._done([*messages[:2], cleared, noted]) == {PIPELINE: "ContextManager: the capability."}
    # cleared before anything noted it: not surveyed, so the stand-in reads it again
    assert surveyor._done([*messages[:2], cleared]) == {}


def test_first_doc_line_reads_the_file_s_first_line_only():
    assert demo._first_doc_line('     1\t"""One line."""\n     2\t\n') == "One line."
    assert demo._first_doc_line('     1\t"""\n     2\tOn the next line.\n') == "On the next line."
    assert demo._first_doc_line("     1\timport os\n     2\t'''not a module docstring'''\n") == "(no docstring)"
    assert demo._first_doc_line("[Old tool result content cleared]") is None
    assert demo._first_doc_line("    41\t    \"\"\"A function's docstring.\n") is None  # a later window of the file


def test_the_demo_s_answer_gives_each_module_its_own_docstring(demo_output: str):
    answer = demo_output.split("Survey complete", 1)[1].split("context now", 1)[0]
    listed = dict(re.findall(r"^- (src/\S+\.py): (.*)$", answer, re.MULTILINE))
    assert PIPELINE in listed and len(listed) >= 10
    wrong = {}
    for path, said in listed.items():
        real = first_docstring_line(REPO / path)
        if said == "(no docstring)" or not real.startswith(said.removesuffix("…").strip()):
            wrong[path] = (said, real)
    assert not wrong, wrong


def test_the_demo_s_task_names_only_what_it_surveys(demo_output: str):
    answer = demo_output.split("Survey complete", 1)[1]
    count = int(re.match(r" \((\d+) modules\)", answer).group(1))  # type: ignore[union-attr]
    packages = re.findall(r"src/compact_agent/(\w+)/", demo.TASK)
    on_disk = [p for pkg in packages for p in (REPO / "src/compact_agent" / pkg).glob("*.py") if p.name != "__init__.py"]
    assert count == len(on_disk)


def test_the_analysis_of_the_demo_s_session_fits_its_usage(demo_output: str):
    """The stand-in reports what it was sent (the view the layers trimmed): the analyzer fits it on
    the requests before the first trim instead of calling it made up."""
    said = " ".join(demo_output.split())
    assert "does not follow the messages" not in said and "stand-in model's numbers" not in said
    fit = re.search(r"recorded requests; size = 1\.00 × estimate \+ (\d+\.\d)K overhead, fit error 0\.0% mean", said)
    assert fit, said
    # the overhead is what every request carries beside its messages: the system prompt and tools
    assert abs(float(fit[1]) * 1_000 - fixed_part()) <= 100, (fit[0], fixed_part())
