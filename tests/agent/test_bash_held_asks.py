"""With deny rules set, a bash line whose commands cannot be told from it (`echo $((i+1))`,
`${x:0:3}`, `case … esac`, `$CMD args`) was refused outright in the REPL, where the user could have
read it and said. It is asked about there (permissions.Permissions.decide), with why the deny rules
cannot check it, and its "always" covers that call only; `--yes`, print mode and a question nobody
can answer refuse it as before, and a line a deny rule matches is refused without a question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.safety.permissions import Answer, Instead, Permissions
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

HELD = ["echo $((i+1))", "echo ${x:0:3}", "case $x in a) ls;; esac", "$CMD args"]


class Asker:
    def __init__(self, *answers: Answer | Instead) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str, str | None]] = []

    def __call__(self, tool: str, detail: str, held: str | None = None) -> Answer | Instead:
        self.asked.append((tool, detail, held))
        return self.answers.pop(0)


@pytest.mark.parametrize("line", HELD)
def test_the_repl_asks_with_the_reason(tmp_path: Path, line: str) -> None:
    ask = Asker("once")
    perms = Permissions(tmp_path, "ask", ask=ask, deny_bash=["rm *", "git push *"])
    assert perms.check("bash", line) is None
    [(tool, detail, held)] = ask.asked
    assert (tool, detail) == ("bash", line)
    assert held is not None and held.startswith("the deny rules ('rm *', 'git push *') cannot tell what this line runs ("), held
    assert held.endswith("): it could run what they forbid"), held


def test_no_is_a_refusal_and_always_covers_that_call_only(tmp_path: Path) -> None:
    ask = Asker("deny", "always", "deny")
    perms = Permissions(tmp_path, "ask", ask=ask, deny_bash=["rm *"])
    assert perms.check("bash", HELD[0]) == "permission denied: the user declined this bash call"
    assert perms.check("bash", HELD[0]) is None  # an "always" said anyway allows this call
    assert perms.always == set()
    assert perms.check("bash", HELD[0]) == "permission denied: the user declined this bash call"  # asked again
    assert len(ask.asked) == 3


def test_it_is_asked_whatever_else_allows_the_tool(tmp_path: Path) -> None:
    """`--allowed-tools bash` or an earlier "always" for the same line does not let it past the deny rules unasked."""
    ask = Asker("deny")
    perms = Permissions(tmp_path, "ask", ask=ask, deny_bash=["rm *"], allow_bash=["*"])
    perms.allowed_tools.add("bash")
    perms.always.add(("bash", HELD[0]))
    assert perms.check("bash", HELD[0]) == "permission denied: the user declined this bash call"


@pytest.mark.parametrize("mode, ask", [("yes", None), ("deny", None), ("ask", None), ("yes", Asker("once"))])
def test_where_nobody_is_asked_it_is_refused_as_before(tmp_path: Path, mode: str, ask: Any) -> None:
    perms = Permissions(tmp_path, mode, ask=ask, deny_bash=["rm *"])  # type: ignore[arg-type]
    said = perms.check("bash", HELD[0]) or ""
    assert said.startswith("permission denied: what the command runs cannot be told (arithmetic"), said
    assert ask is None or ask.asked == []


def test_a_line_a_rule_matches_is_refused_unasked(tmp_path: Path) -> None:
    ask = Asker("once")
    perms = Permissions(tmp_path, "ask", ask=ask, deny_bash=["rm *"])
    assert perms.check("bash", "rm -f x; echo $((i+1))") == "permission denied: command matches deny rule 'rm *'"
    assert ask.asked == []


def reply(req: ChatRequest) -> Reply:
    if not tool_results(req):
        return Reply.tools([("bash", {"command": "i=2; echo $((i+1))"})])
    return Reply.text("done")


async def test_a_session_runs_the_line_once_the_user_says_yes(tmp_path: Path) -> None:
    """Through the session and the bash tool, with real bash: the answer decides whether it runs."""
    got = []
    for answer in ("once", "deny"):
        ask = Asker(answer)
        cwd = tmp_path / answer
        cwd.mkdir()
        with FakeOpenAIServer(reply) as fake:
            s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=fake.base_url, api_key="k",
                                            context_window=32_000, permission_mode="ask", home=tmp_path / "home",
                                            settings=Settings(memory_enabled=False, deny_bash=["rm *"]), ask=ask))
            try:
                assert (await s.run_turn("count")).output == "done"
            finally:
                await s.aclose()
        last = [r for r in fake.requests if tool_results(r)][-1]
        got.append([message_text(m) for m in last.messages if m.get("role") == "tool"][0])
        assert [held is not None for _, _, held in ask.asked] == [True], ask.asked
    assert got[0].splitlines()[0] == "3", got
    assert got[1] == "permission denied: the user declined this bash call", got
