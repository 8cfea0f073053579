"""Slash commands in print mode as the REPL runs them: a project's custom commands expand to their
prompt, and a word after a slash that names no command is refused, not sent to the model."""

from __future__ import annotations

import json

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .scripted import is_summary_request


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def last_user(req) -> str:
    return [message_text(m) for m in req.messages if m.get("role") == "user"][-1]


def test_a_custom_command_is_expanded_in_print_mode_as_in_the_repl(cli):
    """`-p "/review calc.py"` used to reach the model as the literal text `/review calc.py`."""
    commands = cli.cwd / ".compact-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: review a file\n---\nPlease review $ARGUMENTS carefully.\n")
    (commands / "explain.md").write_text("Explain what this does.\n")
    with FakeOpenAIServer(lambda req: Reply.text("looked")) as server:
        review = cli("-p", "/review calc.py", *fake(server))
        piped = cli("-p", "/explain", *fake(server), input="LOG LINE 7\n")
        as_json = cli("-p", "/review a.py b.py", *fake(server), "--output-format", "json")
    assert review.code == 0 and piped.code == 0 and as_json.code == 0, review.stderr + piped.stderr + as_json.stderr
    assert last_user(server.requests[0]) == "Please review calc.py carefully."
    sent = last_user(server.requests[1])
    assert sent.startswith("Explain what this does.") and "LOG LINE 7" in sent  # piped input after it
    assert last_user(server.requests[2]) == "Please review a.py b.py carefully."
    assert as_json.json()["result"] == "looked"


def test_an_unknown_command_is_refused_and_a_path_is_still_a_prompt(cli):
    """`-p /bogus` was sent to the model as a question (the REPL refuses it); `/usr/lib …`, a path,
    is a question."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        bogus = cli("-p", "/bogus", *fake(server))
        bogus_args = cli("-p", "/bogus with words", *fake(server), "--output-format", "json")
        path = cli("-p", "/usr/lib is missing a file, why?", *fake(server))
    assert bogus.code == 2 and bogus.stderr.startswith("compact-agent: unknown command /bogus; /help lists them")
    assert bogus_args.code == 2 and bogus_args.json()["is_error"] and "unknown command /bogus" in bogus_args.json()["error"]
    assert path.code == 0 and len(server.requests) == 1  # only the path went to the model
    assert cli.sessions() and len(cli.sessions()) == 1  # no session was made for the refused ones


def writes_agents_md(req) -> Reply:
    if any(m.get("role") == "tool" for m in req.messages):
        return Reply.text("done")
    if "write an AGENTS.md" in last_user(req):
        return Reply.tools([("write_file", {"path": "AGENTS.md", "content": "# notes\n"})])
    return Reply.text("ok")


def test_commands_in_print_mode_keep_its_rules_and_its_output_formats(cli):
    """From a user trial: `-p /init` had its write refused silently and exited 0; `/status` with
    `--output-format json` printed the plain table; `-p "/rewind 0"` restored files without --yes;
    `-p "/memory 1"` started $EDITOR; `/q` ran a custom `q.md` where the REPL exits."""
    commands = cli.cwd / ".compact-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "q.md").write_text("Q CUSTOM\n")
    (commands / "review.md").write_text("Please review $ARGUMENTS carefully.\n")
    marker = cli.home / "editor-ran"
    editor = cli.home / "editor.sh"
    editor.parent.mkdir(parents=True, exist_ok=True)
    editor.write_text(f"#!/bin/sh\ntouch {marker}\n")
    editor.chmod(0o755)
    with FakeOpenAIServer(writes_agents_md) as server:
        init = cli("-p", "/init", *fake(server))
        init_json = cli("-p", "/init", *fake(server), "--output-format", "json")
        status = cli("-p", "/status", *fake(server), "-c", "--output-format", "json")
        written = cli("-p", "/init", *fake(server), "--yes")
        rewind = cli("-p", "/rewind 0", *fake(server), "-c")
        memory = cli("-p", "/memory 1", *fake(server), "-c", env={"EDITOR": str(editor), "VISUAL": str(editor)})
        quit_ = cli("-p", "/q", *fake(server))
        piped = cli("-p", "-", *fake(server), input="/review q.py\n")
    assert init.code == 3 and "refused 1 action needing approval: write_file(AGENTS.md)" in init.stderr, init.stderr
    out = init_json.json()
    assert init_json.code == 3 and out["subtype"] == "error_permission_denied" and out["permission_denials"]
    result = status.json()
    assert status.code == 0 and result["type"] == "result" and not result["is_error"], status.stdout
    assert "session" in result["result"] and "context" in result["result"]
    assert written.code == 0 and (cli.cwd / "AGENTS.md").is_file(), written.stderr
    assert rewind.code == 2 and "print mode does not ask: add --yes" in rewind.stderr, rewind.stderr
    assert (cli.cwd / "AGENTS.md").is_file()  # nothing was rewound
    assert memory.code == 0 and str(cli.cwd / "AGENTS.md") in memory.stdout and not marker.exists()
    assert quit_.code == 2 and "/q is a REPL command" in quit_.stderr
    assert "Q CUSTOM" not in " ".join(last_user(r) for r in server.requests)
    assert piped.code == 0 and last_user(server.requests[-1]) == "Please review q.py carefully.", piped.stderr


def test_a_command_on_a_new_session_leaves_no_folder_behind(cli):
    """Each `-p /status` or `-p /help` left a session folder holding only its lock and empty side
    folders, then the project's empty folder; a session that saved nothing now leaves nothing. One
    that saved a turn keeps all."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        for line in ("/status", "/help", "/context"):
            assert cli("-p", line, *fake(server)).code == 0
        assert list((cli.home / "projects").iterdir()) == []  # not even the project's folder
        kept = cli("-p", "hello", *fake(server))
        assert kept.code == 0 and len(cli.sessions()) == 1
        status = cli("-p", "/status", *fake(server), "-c")
    session = cli.sessions()[0]
    assert status.code == 0 and session.is_file() and (session.parent / session.stem).is_dir()  # resumed: kept


def test_a_capitalised_command_is_suggested_in_print_mode_and_init_prints_its_path_whole(cli):
    deep = cli.cwd / ("a-directory-name-long-enough-to-wrap-" * 3) / "and-deeper"
    deep.mkdir(parents=True)
    with FakeOpenAIServer(writes_agents_md) as server:
        upper = cli("-p", "/CONTEXTT", *fake(server))  # a typo in capitals (`/CONTEXT` is /context)
        init = cli("-p", "/init", *fake(server), "--yes", "--cwd", str(deep))
    assert upper.code == 2 and "did you mean /context?" in upper.stderr, upper.stderr
    assert init.code == 0 and f"wrote {deep / 'AGENTS.md'};" in init.stdout, init.stdout


def test_a_failure_before_the_turn_is_one_json_object_too(cli):
    """docs/usage.md: a run that fails still prints one object. A bad setting, or an MCP server
    that could never run, failed before the turn with the line on stderr and nothing on stdout."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        bad = cli("-p", "hi", *fake(server), "--output-format", "json", env={"COMPACT_AGENT_HOOKS": "not json"})
        streamed = cli("-p", "hi", *fake(server), "--output-format", "stream-json",
                       env={"COMPACT_AGENT_HOOKS": "not json"})
        plain = cli("-p", "hi", *fake(server), env={"COMPACT_AGENT_HOOKS": "not json"})
    for res in (bad, streamed):
        out = res.json()
        assert res.code == 2 and out["is_error"] and out["subtype"] == "error" and "bad value for hooks" in out["error"]
        assert res.stderr.startswith("compact-agent: bad value for hooks")
    assert plain.code == 2 and plain.stdout == ""  # text mode: the line on stderr only


def summaries_or_long_answers(req) -> Reply:
    return Reply.text("<summary>the work so far</summary>" if is_summary_request(req) else "ok " * 400)


def test_compact_with_nothing_to_do_exits_0_in_a_new_session_as_in_a_continued_one(cli):
    """`-p /compact` in a new session exited 1 ("nothing to compact", a failure) while `-c -p /compact`
    on a session a compaction would not shrink exited 0: nothing to do is not a failure, in either.
    Both say why on stdout; a script tells whether it compacted from `compactions` (docs/usage.md)."""
    with FakeOpenAIServer(summaries_or_long_answers) as server:
        fresh = cli("-p", "/compact", *fake(server))
        fresh_json = cli("-p", "/compact", *fake(server), "--output-format", "json")
        assert cli("-p", "hello", *fake(server)).code == 0
        small = cli("-c", "-p", "/compact", *fake(server), "--output-format", "json")
    assert fresh.code == 0 and fresh.stderr == "", fresh.stderr
    assert fresh.stdout.startswith("not compacted: nothing to compact, the conversation is empty (-c or -r ID")
    assert fresh.stdout.count("\n") == 1
    for res in (fresh_json, small):
        out = res.json()
        assert res.code == 0 and out["subtype"] == "success" and not out["is_error"], res.stdout + res.stderr
        assert out["result"].startswith("not compacted: ") and out["compactions"] == []
    assert "nothing to compact" in fresh_json.json()["result"] and "would keep" in small.json()["result"]


def test_a_commands_json_result_has_the_fields_of_a_turns(cli):
    """`-p /cost --output-format json` lacked `usage`, `num_turns`, `total_cost_usd` and
    `compactions`: a script parsing both had to tell them apart. A command's result has them, zero
    and empty where it made no request; `/compact` lists its compaction and its summary request."""
    with FakeOpenAIServer(summaries_or_long_answers) as server:
        turn = cli("-p", "hello", *fake(server), "--output-format", "json")
        for _ in range(3):
            assert cli("-c", "-p", "tell me more", *fake(server)).code == 0
        cost = cli("-c", "-p", "/cost", *fake(server), "--output-format", "json")
        asked = len(server.requests)
        compact = cli("-c", "-p", "/compact", *fake(server), "--output-format", "stream-json")
        summaries = sum(is_summary_request(r) for r in server.requests[asked:])
    assert turn.code == cost.code == compact.code == 0, cost.stderr + compact.stderr
    out = cost.json()
    assert list(out) == list(turn.json())
    assert out["num_turns"] == 0 and out["compactions"] == [] and out["total_cost_usd"] is None  # fake-model: no known price
    assert out["usage"] == {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "requests": 0,
                            "summary_requests": 0, "memory_requests": 0}
    done = json.loads(compact.stdout.splitlines()[-1])
    assert done["type"] == "result" and list(done) == list(turn.json()), done
    [made] = done["compactions"]
    assert made["trigger"] == "manual" and made["tokens_after"] < made["tokens_before"], done
    assert done["num_turns"] == 0 and done["usage"]["requests"] == 0  # the summary is not a turn's request
    assert done["usage"]["summary_requests"] == summaries == len(server.requests) - asked


def test_a_commands_json_result_text_is_not_cut_at_80_columns(cli):
    """`-p /compact --output-format json` gave "it is worth it once the \nconversation is longer":
    the text was laid out for an 80-column screen, with the spaces that pad each line. A script gets
    whole lines, unpadded; so does a pipe (the refusal is one line, laid out for no screen)."""
    with FakeOpenAIServer(summaries_or_long_answers) as server:
        assert cli("-p", "hello", *fake(server)).code == 0
        compact = cli("-c", "-p", "/compact", *fake(server), "--output-format", "json")
        status = cli("-c", "-p", "/status", *fake(server), "--output-format", "json")
        text = cli("-c", "-p", "/compact", *fake(server))
    assert compact.code == status.code == text.code == 0, compact.stderr + status.stderr
    said = compact.json()["result"]
    assert "\n" not in said and "It is worth it once the conversation is longer" in said, said
    lines = status.json()["result"].splitlines()
    assert lines and not [ln for ln in lines if ln != ln.rstrip()], lines
    assert text.stdout.count("\n") == 1 and "  " not in text.stdout and text.stdout.strip() == said, text.stdout


def test_a_message_number_out_of_range_for_compact_is_bad_usage(cli):
    """`/compact --from 99` exited 1 ("nothing to summarise on that side of the message index"),
    `--up-to -3` 2: both are a bad argument, exit 2 with one line, and nothing is asked of the model."""
    with FakeOpenAIServer(lambda req: Reply.text("ok " * 50)) as server:
        assert cli("-p", "first", *fake(server)).code == 0
        assert cli("-p", "second", "-c", *fake(server)).code == 0
        asked = len(server.requests)
        runs = {arg: cli("-p", f"/compact {arg}", "-c", *fake(server))
                for arg in ("--from 99", "--from 3", "--up-to 99", "--up-to 0", "--up-to -3")}
        assert len(server.requests) == asked
    for arg, run in runs.items():
        assert run.code == 2 and len(run.stderr.strip().splitlines()) == 1, (arg, run.code, run.stderr)
    # message 3, the last answer, stays verbatim after a --from summary: not a number --from takes
    assert runs["--from 99"].stderr.startswith("compact-agent: --from 99: no message to summarise on that side; "
                                               "--from takes 0 to 2 here (/history numbers the messages)")
    assert runs["--from 3"].stderr.startswith("compact-agent: --from 3: no message to summarise on that side but "
                                              "the last answer, which is kept; --from takes 0 to 2 here")
    assert "--up-to takes 1 to 4 here" in runs["--up-to 0"].stderr and "--up-to takes 1 to 4" in runs["--up-to 99"].stderr
    assert runs["--up-to -3"].stderr.startswith("compact-agent: usage: /compact")


def test_status_in_the_next_run_after_a_compaction_shows_the_compacted_size(cli):
    """`-c -p /compact`, then `-c -p /status`: the next run showed the size before the compaction,
    read from a response the compaction kept verbatim (its request held everything compacted)."""
    with FakeOpenAIServer(summaries_or_long_answers) as server:
        assert cli("-p", "hello", *fake(server)).code == 0
        for _ in range(4):
            assert cli("-c", "-p", "tell me more", *fake(server)).code == 0
        before = cli("-c", "-p", "/status", *fake(server))
        compact = cli("-c", "-p", "/compact", *fake(server), "--output-format", "json")
        after = cli("-c", "-p", "/status", *fake(server))
    assert before.code == compact.code == after.code == 0, compact.stderr
    [made] = compact.json()["compactions"]

    def used(run) -> int:
        line = next(ln for ln in run.stdout.splitlines() if ln.startswith("context "))
        return int(line.split()[1].replace(",", ""))

    assert used(before) > made["tokens_after"] + 1_000
    assert used(after) < used(before) - 1_000, (used(before), used(after), made)
