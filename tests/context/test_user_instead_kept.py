"""What the user types at the approval question ("no, and tell the model what to do instead") is theirs,
kept as a message they typed is, in a fold and through a compaction.

The toolset marks the refusal's result (`metadata["compact_agent"]["tool"]`: `declined`, `user_said`);
the library reads the mark. Without it, a fold cut the result to 120 characters, of which the fixed
refusal words took 108 ("… (follow it instead of this call): do n…"), a compaction carried no word
of it (only prompts were the user's), and the digest listed the refused file as changed."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.safety.permissions import INSTEAD, Answer, Instead
from compact_agent.context.compaction import summary
from compact_agent.context.layers.digest import asks, default_digest
from compact_agent.context.plumbing.markers import KEY
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WORDS = "do not touch calc.py at all; put new helpers in src/helpers.py and keep the public API unchanged"
LABEL = '[typed on declining edit_file(path="src/calc.py", …); do this instead:] '
STEPS = [[("read_file", {"path": "src/calc.py"}, "c1")],
         [("edit_file", {"path": "src/calc.py", "old_string": "return a - b", "new_string": "return b - a"}, "c2")],
         [("bash", {"command": "rm -rf build"}, "c3")],
         [("write_file", {"path": "src/helpers.py", "content": "def neg(a):\n    return -a\n"}, "c4")]]


def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    (cwd / "src").mkdir(parents=True)
    (cwd / "src" / "calc.py").write_text("def sub(a, b):\n    return a - b\n")
    return cwd


def model(req: ChatRequest) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>The user asked to tidy sub; helpers were added.</summary>")
    if req.last_user_text() != "tidy sub":
        return Reply.text("More: " + "words " * 600)
    done = sum(1 for m in req.messages if m.get("role") == "assistant")
    return Reply.tools(STEPS[done]) if done < len(STEPS) else Reply.text("Done: helpers in src/helpers.py.")


def session(cwd: Path, tmp_path: Path, server: FakeOpenAIServer, answers: list[Answer | Instead]) -> AgentSession:
    said = iter(answers)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       context_window=32_000, permission_mode="ask", home=tmp_path / "home",
                                       ask=lambda tool, detail: next(said)))


def results(messages: list[ModelMessage]) -> dict[str, ToolReturnPart]:
    return {p.tool_call_id: p for m in messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)}


async def test_the_refusals_words_are_marked_and_kept_whole_in_a_fold(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    with FakeOpenAIServer(model) as server:
        s = session(cwd, tmp_path, server, [Instead(WORDS), "deny", "once"])
        try:
            await s.run_turn("tidy sub")
        finally:
            s.close()
    got = results(s.messages)
    assert got["c2"].content == f"permission denied: the user declined this edit_file call. {INSTEAD} {WORDS}"
    assert got["c2"].metadata[KEY]["tool"] == {"error": True, "declined": True, "user_said": WORDS}
    assert got["c3"].metadata[KEY]["tool"] == {"error": True, "ran": False, "declined": True}  # a plain no
    assert got["c4"].metadata is None  # the write went ahead

    text = default_digest(s.messages)
    assert f"- User: {LABEL}{WORDS}\n" in text, text  # whole, after the call it refused
    assert '- edit_file(path="src/calc.py", old_string="return a - b", new_string="return b - a") ' \
           "-> refused by the user\n" in text, text
    assert '- bash(command="rm -rf build") -> refused by the user\n- write_file' in text, text  # no words: no step
    assert "Files changed: src/helpers.py\n" in text, text  # not calc.py: the user refused that edit
    assert asks(s.messages) == ["tidy sub", LABEL + WORDS]  # the fold keeps it whole where asks fit


async def test_a_compaction_carries_the_refusals_words_as_the_users(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    with FakeOpenAIServer(model) as server:
        s = session(cwd, tmp_path, server, [Instead(WORDS), "once", "once"])
        try:
            await s.run_turn("tidy sub")
            for i in range(3):
                await s.run_turn(f"tell me more {i}")
            await s.compact()
            head = str(s.messages[0].parts[0].content)
            verbatim = head.split("The user's messages, verbatim", 1)[1].split("\n\n", 1)[0]
            assert f"\n- {LABEL}{WORDS}\n" in verbatim, head  # listed with the prompts, the call it refused named
            assert "did not happen" in head and "\n- src/calc.py (edit refused by the user)\n" in head, head  # not "failed"
            assert summary.user_texts(s.messages)[:2] == ["tidy sub", LABEL + WORDS]
            await s.run_turn("and now?")
        finally:
            s.close()
    assert f"- {LABEL}{WORDS}" in server.requests[-1].all_text()  # and sent so


def test_a_result_marked_by_another_toolset_is_the_users_too() -> None:
    """The library reads the mark, whoever wrote the result: a program whose own tool asks the user."""
    call = ToolCallPart("deploy", {"env": "prod", "force": True}, tool_call_id="d1")
    refused = ToolReturnPart("deploy", "The user said no.", tool_call_id="d1",
                             metadata={KEY: {"tool": {"error": True, "declined": True, "user_said": "use staging"}}})
    history: list[ModelMessage] = [ModelRequest.user_text_prompt("ship it"), ModelResponse(parts=[call]),
                                   ModelRequest(parts=[refused])]
    said = '[typed on declining deploy(env="prod", …); do this instead:] use staging'
    assert summary.user_texts(history) == ["ship it", said]
    assert f"- User: {said}" in default_digest(history)
    # Unmarked, the same text is the tool's: not the user's.
    plain = ToolReturnPart("deploy", "use staging", tool_call_id="d1")
    assert summary.user_texts([*history[:2], ModelRequest(parts=[plain])]) == ["ship it"]


async def test_words_typed_last_in_a_turn_compacted_midway_are_carried_on(tmp_path: Path) -> None:
    """No prompt after the refusal: its words are the user's newest, and two compactions carry them on."""
    from pydantic_ai.messages import TextPart

    from compact_agent.config import Limits
    from compact_agent.context.compaction.compactor import Compactor

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Tidying calc.py.</summary>"

    refused = ToolReturnPart("edit_file", "permission denied: the user declined this edit_file call. " + WORDS,
                             tool_call_id="e1", metadata={KEY: {"tool": {"error": True, "declined": True,
                                                                         "user_said": WORDS}}})
    def rounds(at: str) -> list[ModelMessage]:
        return [m for i in range(8) for m in (
            ModelResponse(parts=[TextPart(f"step {i}"), ToolCallPart("read_file", {"path": f"f{i}.py"},
                                                                     tool_call_id=f"{at}{i}")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "y" * 3_000, tool_call_id=f"{at}{i}")]))]
    history: list[ModelMessage] = [
        ModelRequest.user_text_prompt("tidy sub"),
        ModelResponse(parts=[ToolCallPart("edit_file", {"path": "src/calc.py", "old_string": "a", "new_string": "b"},
                                          tool_call_id="e1")]),
        ModelRequest(parts=[refused]), *rounds("r")]
    comp = Compactor(Limits.for_window(32_000, 4_000))
    first = await comp.compact(history, summarize=summarize, archive=lambda: tmp_path / "a")
    assert summary.user_texts(first.messages) == ["tidy sub", LABEL + WORDS]
    later = [*first.messages, *rounds("s")]
    second = await comp.compact(later, summarize=summarize, archive=lambda: tmp_path / "b")
    text = "\n".join(p.content for m in second.messages for p in m.parts if isinstance(getattr(p, "content", None), str))
    assert f"- {LABEL}{WORDS}" in text and summary.user_texts(second.messages) == ["tidy sub", LABEL + WORDS]


async def test_words_typed_declining_an_mcp_servers_tool_are_marked_too(tmp_path: Path) -> None:
    import sys

    from compact_agent.config import Settings

    server = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")

    def mcp_model(req: ChatRequest) -> Reply:
        done = sum(1 for m in req.messages if m.get("role") == "assistant")
        return Reply.tools([("notes_lookup_note", {"key": f"k{done}"})]) if done < 2 else Reply.text("done")

    cwd = tmp_path / "project"
    cwd.mkdir()
    answers: list[Answer | Instead] = [Instead("read docs/notes.md instead"), "deny"]
    settings = Settings(memory_enabled=False, mcp_servers={"notes": {"command": sys.executable, "args": [server]}})
    with FakeOpenAIServer(mcp_model) as fake:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=fake.base_url, api_key="k",
                                        context_window=32_000, permission_mode="ask", home=tmp_path / "home",
                                        settings=settings, ask=lambda tool, detail: answers.pop(0)))
        try:
            await s.run_turn("look it up")
        finally:
            await s.aclose()
    marks = [p.metadata[KEY]["tool"] for p in results(s.messages).values() if p.metadata]
    assert marks == [{"error": True, "ran": False, "declined": True, "user_said": "read docs/notes.md instead"},
                     {"error": True, "ran": False, "declined": True}]
    assert summary.user_texts(s.messages) == [
        "look it up", '[typed on declining notes_lookup_note(key="k0"); do this instead:] read docs/notes.md instead']
