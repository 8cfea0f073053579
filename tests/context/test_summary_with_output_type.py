"""An agent with a structured output type (pydantic-ai's output tool) gets its summaries in one
request that shares the conversation's prefix. pydantic-ai turns the summary's `tool_choice: none`
into "call the output tool" when the agent allows no text, so each summary was two forced calls
the library refused, then the separate request without tools, its whole input uncached."""

from __future__ import annotations

import json

from pydantic import BaseModel

from compact_agent.context import CompactionEvent
from tests.fakes.openai_server import ChatRequest, Reply

from .pages_agent import eager, is_summary_request, output_call, reading, run_pages


class Pages(BaseModel):
    read: int


async def test_a_summary_for_an_agent_with_an_output_type_is_one_request_with_its_tools() -> None:
    def answer(req: ChatRequest, read: int) -> Reply | None:
        choice = req.tool_choice
        forced = choice == "required" or (isinstance(choice, dict) and choice.get("type") == "function")
        if is_summary_request(req) and not forced:
            return Reply.text("<summary>Pages read so far.</summary>")
        if forced and isinstance(choice, dict) and choice["function"]["name"] == "final_result":
            return output_call(read)  # as the API must
        return None

    run = await run_pages(reading(answer, final=output_call), output_type=Pages)
    result, server, events = run.result, run.server, run.events

    assert result.output == Pages(read=25)
    compactions = [e for e in events if isinstance(e, CompactionEvent) and e.action == "full"]
    summaries = [r for r in server.requests if is_summary_request(r)]
    assert compactions and len(summaries) == len(compactions)  # one request each, none refused
    for r in summaries:
        assert [t["function"]["name"] for t in r.tools] == ["read", "final_result"]  # the shared prefix
        assert r.tool_choice == "auto"
    assert all(r.tools for r in server.requests)  # no separate request without tools
    assert server.rejected == []


def test_the_notes_and_the_summary_share_how_they_ask_for_text() -> None:
    """Both requests the library makes for itself go through `unable_to_act`: "none" for an agent
    that may answer in text, text allowed and the tools left to the model for one with an output tool."""
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.tools import ToolDefinition

    from compact_agent.context.compaction.text_only import unable_to_act

    plain, settings = unable_to_act(None, {"temperature": 0.0})
    assert settings == {"temperature": 0.0, "tool_choice": "none"} and plain.allow_text_output
    output = ModelRequestParameters(output_tools=[ToolDefinition(name="final_result")], output_mode="auto")
    params, settings = unable_to_act(output, {"tool_choice": "required"})
    assert settings == {"tool_choice": "auto"}
    assert params.output_mode == "tool" and params.allow_text_output and params.output_tools == output.output_tools


async def test_a_summary_for_an_agent_with_native_output_is_not_held_to_its_schema() -> None:
    """With `NativeOutput` the summary request carried the output type's JSON schema, which the
    provider enforces: the summary came back as `{"read": 0}` and stood for the whole conversation."""
    from pydantic_ai import NativeOutput

    def answer(req: ChatRequest, read: int) -> Reply | None:
        schema = req.body.get("response_format", {}).get("type") == "json_schema"
        if schema and (is_summary_request(req) or read >= 25):
            return Reply.text(json.dumps({"read": read if not is_summary_request(req) else 0}))
        if is_summary_request(req):
            return Reply.text("<summary>Pages 1 to 25 read, one tool call each.</summary>")
        return None

    run = await run_pages(reading(answer, final=None), output_type=NativeOutput(Pages))
    result, cm, server = run.result, run.cm, run.server

    assert result.output == Pages(read=25) and cm.compactions
    summaries = [r for r in server.requests if is_summary_request(r)]
    assert summaries and not any("response_format" in r.body for r in summaries)
    assert cm.compactions[-1].summary == "Pages 1 to 25 read, one tool call each."
    opening = str(result.all_messages()[0].parts[0].content)  # type: ignore[union-attr]
    assert "Pages 1 to 25 read" in opening and '{"read"' not in opening


async def test_a_summary_for_an_agent_with_prompted_output_is_asked_for_in_text() -> None:
    """With `PromptedOutput` the summary request carried pydantic-ai's instruction to answer in JSON
    of the output type's schema, and JSON mode (`response_format`), which the provider enforces: the
    summary could only come back as JSON and stand for the whole conversation."""
    from pydantic_ai import PromptedOutput

    def answer(req: ChatRequest, read: int) -> Reply | None:
        if req.body.get("response_format") and (is_summary_request(req) or read >= 25):
            return Reply.text(json.dumps({"read": read if not is_summary_request(req) else 0}))
        if is_summary_request(req):
            return Reply.text("<summary>Pages 1 to 25 read, one tool call each.</summary>")
        return None

    run = await run_pages(reading(answer, final=None), output_type=PromptedOutput(Pages),
                          instructions="Read carefully.")
    result, cm, server = run.result, run.cm, run.server

    assert result.output == Pages(read=25) and cm.compactions
    main = [r for r in server.requests if not is_summary_request(r)]
    assert all("JSON object" in r.all_text() and "response_format" in r.body for r in main)  # the agent's own
    summaries = [r for r in server.requests if is_summary_request(r)]
    assert summaries
    for r in summaries:
        assert "response_format" not in r.body
        assert "JSON" not in r.all_text() and '"required": ["read"]' not in r.all_text()
        assert r.messages[0] == {"role": "system", "content": "Read carefully."}  # the agent's instructions kept
    assert cm.compactions[-1].summary == "Pages 1 to 25 read, one tool call each."


def test_native_output_is_left_out_of_the_librarys_own_requests() -> None:
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.output import OutputObjectDefinition

    from compact_agent.context.compaction.text_only import unable_to_act

    native = ModelRequestParameters(output_mode="native", output_object=OutputObjectDefinition(json_schema={}))
    params, settings = unable_to_act(native, None)
    assert params.output_mode == "text" and params.output_object is None and settings == {"tool_choice": "none"}
    prompted = ModelRequestParameters(output_mode="prompted", output_object=OutputObjectDefinition(json_schema={}),
                                      prompted_output_template="Answer in JSON: {schema}")
    params, _ = unable_to_act(prompted, None)
    assert params.output_mode == "text" and params.prompted_output_instructions is None and params.allow_text_output


async def test_what_each_summary_request_used_is_on_its_compaction_event() -> None:
    """No event said what the library's own requests used: a developer could not count what the
    summaries cost. (Their tokens count in the run's usage too: test_summary_counts_in_the_run.py.)"""
    run = await run_pages(reading("<summary>Pages read so far.</summary>"))
    result, server, events = run.result, run.server, run.events

    summaries = [r for r in server.requests if is_summary_request(r)]
    compactions = [e for e in events if isinstance(e, CompactionEvent) and e.action == "full"]
    assert summaries and len(compactions) == len(summaries)
    assert result.usage.requests == len(server.requests) - len(summaries)  # the agent's steps, as pydantic-ai counts
    for event, request in zip(compactions, summaries, strict=True):
        usage = event.detail["usage"]
        assert usage["requests"] == 1 and usage["input_tokens"] == request.prompt_tokens
        assert usage["output_tokens"] > 0 and usage["cache_read_tokens"] >= 0


async def test_a_summary_reply_calling_the_output_tool_goes_to_the_separate_request_at_once() -> None:
    """A model that answers the summary request by calling the offered output tool was refused and
    asked again with the tool offered again, called it again, and only the separate request (no tools)
    got the summary: three requests a compaction. Now the call sends the separate request next: two."""
    # the summary request answered with a call of the output tool while it is offered
    run = await run_pages(reading(eager("<summary>Pages read so far.</summary>"), final=output_call),
                          output_type=Pages)
    result, server, events = run.result, run.server, run.events

    assert result.output == Pages(read=25)
    compactions = [e for e in events if isinstance(e, CompactionEvent) and e.action == "full"]
    assert compactions and all(e.detail["usage"]["requests"] == 2 for e in compactions)
    summaries = [r for r in server.requests if is_summary_request(r)]
    assert len(summaries) == 2 * len(compactions)
    assert [bool(r.tools) for r in summaries] == [True, False] * len(compactions)  # shared, then separate
    assert run.cm.compactions[-1].summary.startswith("Pages read so far.")
