"""Without --base-url the OpenAI client sends to OPENAI_BASE_URL, and a password or token in that
address is a key to the server. Only --base-url's was registered as a secret: the variable reached
every command the model ran, and output that did not spell the address whole (`tr @ ' '`) went to
the model and into the session file. Now the variable's secrets are redacted like a key and the
variable is left out of the commands' environment."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, tool_results


@pytest.mark.parametrize("PASSWORD", ["longpassword123456", "pw12"])  # one too short to register as a key too
def test_a_password_in_openai_base_url_reaches_no_command_model_or_file(cli: Cli, PASSWORD: str) -> None:  # noqa: N803
    seen: list[str] = []

    def model(req: ChatRequest) -> Reply:
        if results := tool_results(req):
            seen.extend(str(r.get("content")) for r in results)
            return Reply.text("done")
        return Reply.tools([("bash", {"command": 'echo "[$OPENAI_BASE_URL]" | tr @ " "'})])

    with FakeOpenAIServer(model, require_auth=False) as server:
        url = server.base_url.replace("http://", f"http://bob:{PASSWORD}@")
        run = cli("-p", "show the address", "-y", "-m", "fake-model",
                  env={"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k"})
    assert run.code == 0 and run.stdout.strip() == "done", run.stderr
    assert seen and all(PASSWORD not in text for text in seen), seen
    assert "[]" in seen[0], seen  # the variable is not in the command's environment
    written = [p for p in cli.home.rglob("*") if p.is_file()]
    assert written and all(PASSWORD.encode() not in p.read_bytes() for p in written)
    assert PASSWORD not in run.stdout + run.stderr
