"""The REPL's question about a bash line the --allowed-tools 'bash(…)' rules did not cover says why,
above the line in the warning's colour, as print mode's refusal does: `find . -exec rm {} +` under
bash(find *) got a bare question, while print mode said why. The reason names a rule that would
cover the line (`bash(find * -exec rm *)`): it read "a rule covers the words `-exec` of it"."""

from __future__ import annotations

from compact_agent.agent.safety.bash_rules import allowed_by, why_not_allowed

LINE = "find . -exec rm {} +"
WHY = ("`find . -exec rm '{}' +` is not covered by bash(find *): a `*` of a rule does not stand for `-exec` "
       "(what it runs, deletes or writes); only a rule that spells it out covers it, such as bash(find * -exec rm *)")


def test_the_reason_names_a_rule_that_covers_it() -> None:
    assert why_not_allowed(LINE, ["find *"]) == WHY
    assert allowed_by(LINE, ["find * -exec rm *"])
    assert why_not_allowed("find . -delete", ["find *"]).endswith("such as bash(find * -delete)")  # type: ignore[union-attr]
    # a shell's `-c` runs any text: no rule is offered for it
    assert "such as" not in (why_not_allowed("bash -c 'rm x'", ["bash *"]) or "x")


async def test_the_repl_question_says_why(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The real REPL with the rule bash(find *) (what --allowed-tools 'bash(find *)' sets), its typed question answered no."""
    from compact_agent.config import Settings
    from tests.fakes.openai_server import Reply, tool_results

    from .repl_driver import drive

    def model(req):  # type: ignore[no-untyped-def]
        return Reply.text("ok") if tool_results(req) else Reply.tools([("bash", {"command": LINE})])

    run = await drive(tmp_path, model, ["clean\r"], answers="n\n", settings=Settings(memory_enabled=False, allow_bash=["find *"]))
    out = " ".join(run.out.split())
    assert f"⚠ {WHY} {LINE}" in out, run.out
    assert "[a]lways" in run.out, run.out  # an ordinary question otherwise
