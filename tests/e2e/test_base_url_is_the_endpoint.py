"""A --base-url copied as the chat endpoint itself (`…/v1/chat/completions`, as server pages and
examples show it) is bad usage said at start, naming the address to give: the client appends
/chat/completions, so every request went to …/chat/completions/chat/completions, and the user read
a 404 advising to check the model name, after a session had been saved for it."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_the_chat_endpoint_given_as_base_url_is_refused_with_the_address_to_give(cli) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        base = server.base_url  # http://127.0.0.1:PORT/v1
        for given in (f"{base}/chat/completions", f"{base}/chat/completions/"):
            res = cli("-p", "hi", "-m", "fake-model", "--api-key", "k", "--base-url", given)
            assert res.code == 2, res.stderr
            assert res.stderr == (f"compact-agent: --base-url: '{given}' is the chat endpoint itself; give the "
                                  f"address it is under, {base} (the client adds /chat/completions)\n")
        analyze = cli("analyze", "-m", "fake-model", "--base-url", f"{base}/chat/completions", ".")
        assert analyze.code == 2 and "is the chat endpoint itself; give the address it is under" in analyze.stderr
        fine = cli("-p", "hi", "-m", "fake-model", "--api-key", "k", "--base-url", base)
        assert fine.code == 0 and fine.stdout.strip() == "ok", fine.stderr
        assert len(server.requests) == 1  # none sent for the refused addresses
    assert len(cli.sessions()) == 1  # and no session saved for them
