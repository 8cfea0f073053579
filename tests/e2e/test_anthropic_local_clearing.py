"""With an Anthropic model, old tool results are cleared by microcompact (L3), as with any other
provider, unless `anthropic_server_clearing` asks Anthropic's server to clear them.

Server-side clearing was the default: the requests carried `context_management` and the local layer
stood aside. The response does not say what the server cleared (pydantic-ai does not surface
`applied_edits`), so every report after a clearing fell far below our size of the request and was
refused by the calibration, the sizes stayed those of the uncleared request, and the clearing never
put a compaction off. Replayed over the recorded sessions at Anthropic's prices, the local priced layer
cost less at 32K, 64K and 128K and kept more of what the next step used at 64K, 128K and 200K."""

from __future__ import annotations

from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer, MessagesRequest

CLEARED = "[Old tool result content cleared]"
FILES = 4


def reader(req: MessagesRequest) -> AnthropicReply:
    """Reads the files one per step, then answers."""
    n = len(req.blocks("tool_result"))
    if n < FILES:
        return AnthropicReply(tool_uses=(("read_file", {"path": f"f{n}.txt"}),))
    return AnthropicReply("read them all")


def results(req: MessagesRequest) -> list[str]:
    """Each tool result's text (Anthropic takes a string or text blocks)."""
    def text(content: object) -> str:
        if isinstance(content, list):
            return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
        return str(content)
    return [text(b.get("content")) for b in req.blocks("tool_result")]


def run(cli, server: FakeAnthropicServer, **settings: str):
    for i in range(FILES):
        (cli.cwd / f"f{i}.txt").write_text(f"content of file {i}\n" + "x" * 4_000)
    env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test",
           # The cache is gone by the next request: microcompact's time trigger clears at once.
           "COMPACT_AGENT_CACHE_TTL_MINUTES": "0.000000001", "COMPACT_AGENT_MICROCOMPACT_KEEP_RECENT": "1",
           "COMPACT_AGENT_MEMORY_ENABLED": "false", **settings}
    return cli("-p", "read the files", "--model", "claude-sonnet-4-5", env=env)


def test_anthropic_requests_clear_old_results_locally_by_default(cli) -> None:
    with FakeAnthropicServer(reader) as server:
        out = run(cli, server)
    assert out.code == 0, out.stderr
    assert all("context_management" not in r.body for r in server.requests), [r.body.keys() for r in server.requests]
    assert all("context-management" not in r.headers.get("anthropic-beta", "") for r in server.requests)
    last = results(server.requests[-1])
    assert len(last) == FILES and last[:-1] == [CLEARED] * (FILES - 1), last  # all but the newest, cleared here
    assert "content of file 3" in last[-1]


def test_server_clearing_is_asked_for_and_left_to_the_server(cli) -> None:
    with FakeAnthropicServer(reader) as server:
        out = run(cli, server, COMPACT_AGENT_ANTHROPIC_SERVER_CLEARING="true")
    assert out.code == 0, out.stderr
    edits = [r.body.get("context_management", {}).get("edits") for r in server.requests]
    assert all(e and e[0]["type"] == "clear_tool_uses_20250919" and e[0]["keep"]["value"] == 1 for e in edits), edits
    assert all("context-management" in r.headers.get("anthropic-beta", "") for r in server.requests)
    assert CLEARED not in results(server.requests[-1])  # sent whole: the server clears
