"""A read of `src/core.py` beside an edit of the same file by its absolute path was still sent back
to the file (its line numbers those of the old content): the paths were compared as text. A call
that changed the file under any spelling ending at a `/` with the read's own keeps the read from
being sent back; a file it did not change is sent back as before."""

from __future__ import annotations

from pydantic_ai.messages import ModelResponse, ToolCallPart

from compact_agent.context.layers.rereads import Reads


def reads_after(edited: str) -> Reads:
    read = ModelResponse(parts=[ToolCallPart("read_file", {"path": "src/core.py", "offset": 30}, tool_call_id="r1"),
                                ToolCallPart("read_file", {"path": "./src/util.py"}, tool_call_id="r2")])
    edit = ModelResponse(parts=[ToolCallPart("edit_file", {"path": edited}, tool_call_id="e1")])

    def changed(response: ModelResponse) -> list[str]:
        return [str(p.args_as_dict()["path"]) for p in response.parts
                if isinstance(p, ToolCallPart) and p.tool_name == "edit_file"]
    return Reads([read, edit], changed)


def test_an_edit_by_another_spelling_of_the_path_keeps_the_read_from_the_file() -> None:
    for spelling in ("/home/me/app/src/core.py", "src/core.py", "./src/core.py", "src/../src/core.py"):
        reads = reads_after(spelling)
        assert reads.get("r1") is None, spelling
        assert reads.get("r2") == ("./src/util.py", 1), spelling  # not changed: sent back as before


def test_a_file_of_a_longer_name_is_not_taken_for_it() -> None:
    reads = reads_after("/home/me/app/src/xcore.py")
    assert reads.get("r1") == ("src/core.py", 30)
