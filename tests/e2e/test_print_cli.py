"""Print mode as scripts and new users meet it: flags in any order, stdin, result objects, refusals,
and one-line errors — through the real CLI against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import re
import socket
from importlib.metadata import version
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def user_text(req) -> str:
    return "\n".join(message_text(m) for m in req.messages if m.get("role") == "user")


def system_text(req) -> str:
    return "\n".join(message_text(m) for m in req.messages if m.get("role") == "system")


def echo(req) -> Reply:
    return Reply.text("ok")


def test_version(cli):
    res = cli("--version")
    assert res.code == 0 and res.stdout.strip() == f"compact-agent {version('compact-agent')}"


def test_stdin_reaches_the_model_and_flags_may_follow_p(cli):
    with FakeOpenAIServer(echo) as server:
        dash = cli("-p", *fake(server), "-", input="PROMPT FROM STDIN\n")
        joined = cli("-p", *fake(server), "explain this log", input="LOG LINE 42\n")
    assert dash.code == 0 and joined.code == 0, dash.stderr + joined.stderr
    assert "PROMPT FROM STDIN" in user_text(server.requests[0])
    text = user_text(server.requests[1])
    assert "explain this log" in text and "LOG LINE 42" in text
    assert text.index("explain this log") < text.index("LOG LINE 42")


def test_piped_input_larger_than_a_request_goes_as_a_file_the_model_can_read(cli):
    """`cat big.log | compact-agent -p "explain"` in a 32K window: the model gets the typed words,
    the log's first and last lines and the path of the whole log, which read_file may open (before,
    the first request was compacted at once and showed ~300 characters of it)."""
    log = "".join(f"10:{i // 60:02d}:{i % 60:02d} worker-{i % 7} job {i} done\n" for i in range(9000))
    seen: list[str] = []

    def reads_the_rest(req) -> Reply:
        seen.append(user_text(req))
        if not any(m.get("role") == "tool" for m in req.messages):
            path = re.search(r"Full input saved to (\S+) ", seen[0]).group(1)
            return Reply.tools([("read_file", {"path": path, "offset": 4500, "limit": 1})])
        return Reply.text("job 4499 is in the middle")

    with FakeOpenAIServer(reads_the_rest) as server:
        res = cli("-p", "explain this log", *fake(server), "--context-window", "32000", input=log)
    assert res.code == 0 and res.stdout.strip() == "job 4499 is in the middle", res.stderr
    assert "is more than the 32,000-token window holds: the model gets its beginning and end" in res.stderr
    first = seen[0]
    assert first.startswith("explain this log\n\n10:00:00 worker-0 job 0 done\n")
    assert "worker-4 job 8999 done" in first and "job 4499 " not in first  # its two ends, not its middle
    assert "[Input too large for the context (289,890 characters" in first
    saved = Path(re.search(r"Full input saved to (\S+) ", first).group(1))
    assert saved.read_text() == log
    results = [message_text(m) for m in server.requests[-1].messages if m.get("role") == "tool"]
    assert results and "worker-5 job 4499 done" in results[0]  # read_file read the middle of the saved input
    assert max(req.prompt_tokens for req in server.requests) < 32_000


def test_input_that_is_not_utf8_is_read_as_latin1(cli):
    """A piped log with a Latin-1 byte, or such a byte on the command line, is a prompt like any
    other (a note says how it was read), not an encoding error."""
    with FakeOpenAIServer(echo) as server:
        piped = cli("-p", *fake(server), "explain", input=b"caf\xe9 au lait\n")
        argv = cli("-p", *fake(server), "na\udcefve")  # how Python hands over a command-line byte 0xef
    assert piped.code == 0 and argv.code == 0, piped.stderr + argv.stderr
    assert piped.stdout.strip() == argv.stdout.strip() == "ok"
    assert "café au lait" in user_text(server.requests[0]) and "naïve" in user_text(server.requests[1])
    assert "stdin is not UTF-8; it is read as Latin-1" in piped.stderr
    assert "the prompt is not UTF-8" in argv.stderr


def test_a_key_streamed_in_pieces_is_never_shown(cli):
    """A provider streams a few characters at a time, so a key the model repeats arrives cut in
    pieces: no piece of the stream-json text shows it, and neither does the text mode."""
    key = "sk-live-0123456789abcdefXYZ"
    said = f"{'x' * 128}your key is {key}, keep it safe{'y' * 270}"  # the first of 3 pieces ends in the key

    def says_key(req) -> Reply:
        return Reply.text(said)

    with FakeOpenAIServer(says_key) as server:
        stream = cli("-p", *fake(server)[:-2], "show the key", "--output-format", "stream-json",
                     env={"OPENAI_API_KEY": key})
        plain = cli("-p", *fake(server)[:-2], "show the key", env={"OPENAI_API_KEY": key})
    texts = [e["text"] for e in map(json.loads, stream.stdout.splitlines()) if e["type"] == "text"]
    assert stream.code == 0 and len(texts) >= 2, stream.stderr  # it did arrive in pieces
    assert "".join(texts) == plain.stdout.strip() == said.replace(key, "[REDACTED]")
    assert key[:6] not in stream.stdout + stream.stderr + plain.stdout + plain.stderr


def test_control_characters_from_the_model_are_shown_escaped(cli):
    """A tool call whose path carries an escape sequence and a carriage return cannot repaint the
    terminal: the verbose tool line and the answer show the escapes."""
    def hostile(req) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("write_file", {"path": "a\x1b[31mred\r.txt", "content": "x"})])
        return Reply.text("done \x1b]0;title\x07 \u202eright-to-left")

    with FakeOpenAIServer(hostile) as server:
        res = cli("-p", *fake(server), "write it", "--yes", "--verbose")
    assert res.code == 0, res.stderr
    assert "\x1b" not in res.stdout + res.stderr and "\r" not in res.stdout + res.stderr
    assert "write_file(a\\x1b[31mred .txt)" in res.stderr  # a tool line shows whitespace as spaces
    assert res.stdout.strip() == "done \\x1b]0;title\\x07 \\u202eright-to-left"


def test_prompt_is_required(cli):
    res = cli("-p", "--model", "fake-model")  # --model is an option, not the prompt
    assert res.code == 2 and "needs a prompt" in res.stderr and res.stderr.count("\n") == 1


def test_an_empty_pipe_is_said_as_one(cli):
    """A prompt that was to come from stdin and did not is said so, not answered with 'or pipe it
    on stdin' to a user who did."""
    res = cli("-p", "-", input="\n")
    assert res.code == 2 and res.stderr == (
        'compact-agent: -p - reads the prompt from stdin, and stdin was empty (or give it: compact-agent -p "QUERY")\n')
    res = cli("-p", input="")
    assert res.code == 2 and res.stderr == (
        'compact-agent: -p needs a prompt: none was given and stdin was empty (compact-agent -p "QUERY")\n')


def test_a_blank_prompt_is_said_as_one(cli):
    """`-p "   "` said `none was given`, to a user who gave one: it is blank."""
    res = cli("-p", "   ", input="")
    assert res.code == 2 and res.stderr == (
        'compact-agent: -p needs a prompt: the one given is blank and stdin was empty (compact-agent -p "QUERY")\n')
    res = cli("-p", "", "--model", "fake-model")  # stdin at end of file, as the runner gives it
    assert res.code == 2 and "-p needs a prompt: the one given is blank" in res.stderr, res.stderr
    assert cli.sessions() == []


def failing_tools(req) -> Reply:
    if not any(m.get("role") == "tool" for m in req.messages):
        return Reply.tools([("read_file", {"path": "missing.py"}), ("bash", {"command": "echo out; exit 3"}),
                            ("glob", {"pattern": "*.txt"})])
    return Reply.text("done")


def test_stream_json_init_and_failed_tools_are_errors(cli):
    (cli.cwd / "a.txt").write_text("x\n")
    with FakeOpenAIServer(failing_tools) as server:
        res = cli("-p", "go", *fake(server), "--yes", "--output-format", "stream-json")
    assert res.code == 0, res.stderr
    events = [json.loads(line) for line in res.stdout.splitlines()]
    init = events[0]
    assert init["type"] == "init" and init["model"] == "fake-model" and init["session_id"]
    assert {"read_file", "bash", "todo_write"} <= set(init["tools"]) and init["window"] > 0
    results = {e["tool"]: e for e in events if e["type"] == "tool_result"}
    assert results["read_file"]["error"] is True and "File not found: missing.py" in results["read_file"]["content"]
    assert results["bash"]["error"] is True and "exit code: 3" in results["bash"]["content"]
    assert results["glob"]["error"] is False
    last = events[-1]
    assert last["type"] == "result" and last["is_error"] is False and last["result"] == "done"
    assert last["session_id"] == init["session_id"]


def test_json_result_carries_duration_turns_and_cost(cli):
    with FakeOpenAIServer(failing_tools) as server:
        res = cli("-p", "go", *fake(server), "--yes", "--output-format", "json")
        verbose = cli("-p", "go", *fake(server), "--yes", "--verbose")
    with FakeOpenAIServer(failing_tools, model="deepseek-chat") as server:
        priced = cli("-p", "go", "--model", "deepseek-chat", "--base-url", server.base_url, "--api-key", "k",
                     "--yes", "--output-format", "json")
    assert verbose.code == 0 and verbose.stdout.strip() == "done"
    assert "● read_file(missing.py)" in verbose.stderr and "● bash(echo out; exit 3)" in verbose.stderr
    # Calls made together print first; a result not right under its own call line names the call.
    lines = verbose.stderr.splitlines()
    for call, result in (("read_file(missing.py)", "error: File not found: missing.py"),
                         ("bash(echo out; exit 3)", "exit code: 3 · out")):
        under = [b for a, b in zip(lines, lines[1:], strict=False) if a == f"● {call}"]
        assert f"  ⎿ {call}: {result}" in lines or under == [f"  ⎿ {result}"], verbose.stderr
    out = res.json()
    assert res.code == 0 and out["is_error"] is False and out["subtype"] == "success"
    assert out["num_turns"] == 2 and isinstance(out["duration_ms"], int) and out["duration_ms"] >= 0
    assert out["total_cost_usd"] is None and out["permission_denials"] == []  # no price known: not "free"
    assert priced.code == 0 and isinstance(priced.json()["total_cost_usd"], float) and priced.json()["total_cost_usd"] > 0


def test_failed_run_prints_a_json_error_and_print_mode_wording(cli):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    res = cli("-p", "hi", "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1", "--api-key", "k",
              "--output-format", "json")
    assert res.code == 1
    out = res.json()
    assert out["is_error"] is True and out["type"] == "result" and "reach" in out["error"]
    assert "send the message again" not in res.stderr and "-c -p" in res.stderr
    assert res.stderr.count("\n") == 1
    home = cli("-p", "hi", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", env={"COMPACT_AGENT_HOME": "/dev/null/x"})
    assert home.code == 2 and home.stderr.count("\n") == 1  # a bad variable: named, with what to do
    assert "COMPACT_AGENT_HOME=/dev/null/x: cannot keep sessions there (part of that path is a file" in home.stderr
    assert "Error" not in home.stderr  # no NotADirectoryError / OSError class name
    nokey = cli("-p", "hi", "--output-format", "json")  # fails before any session: still one JSON object
    assert nokey.code == 1 and nokey.json()["is_error"] is True and "DEEPSEEK_API_KEY" in nokey.json()["error"]


def writer(req) -> Reply:
    if not any(m.get("role") == "tool" for m in req.messages):
        return Reply.tools([("write_file", {"path": "b.py", "content": "print(1)\n"}),
                            ("write_file", {"path": "../shared/c.txt", "content": "shared\n"})])
    return Reply.text("tried")


def test_refused_actions_are_told_to_the_user(cli):
    shared = cli.cwd.parent / "shared"
    shared.mkdir()
    with FakeOpenAIServer(writer) as server:
        res = cli("-p", "write b.py", *fake(server), "--output-format", "json")
        allowed = cli("-p", "write b.py", *fake(server), "--allowed-tools", "write_file", "--add-dir", str(shared))
    assert res.code == 3
    assert "refused 1 action needing approval: write_file(b.py)" in res.stderr and "write_file(b.py)" in res.stderr and "--yes" in res.stderr
    out = res.json()
    assert out["is_error"] is True and out["permission_denials"] == ["write_file(b.py)"]  # c.txt: outside, not asked
    assert allowed.code == 0, allowed.stderr
    assert (cli.cwd / "b.py").read_text() == "print(1)\n"
    assert (shared / "c.txt").read_text() == "shared\n"  # --add-dir made the folder writable


def test_session_choice_errors(cli):
    empty = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--continue")
    assert empty.code == 1 and "no earlier session" in empty.stderr and not cli.sessions()
    both = cli("-p", "hi", "--resume", "abc", "--continue")
    assert both.code == 2 and "--continue and --resume" in both.stderr


def test_window_too_small_and_unknown_model(cli):
    res = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--context-window", "1024")
    assert res.code == 2 and res.stderr.count("\n") == 1  # a value the user gave that cannot work: bad usage
    assert "cannot hold the system prompt and tool definitions" in res.stderr
    assert re.search(r"the minimum is [\d,]+ \(--context-window\)$", res.stderr.strip()), res.stderr
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("context_window = 3000\n")
    from_file = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1")
    config.unlink()
    assert from_file.code == 2 and from_file.stderr.strip().endswith(f"(context_window in {config})"), from_file.stderr
    typo = cli("-p", "hi", "--model", "deepseek-chta")
    assert "did you mean deepseek-chat?" in typo.stderr and "32,768" in typo.stderr
    other = cli("-p", "hi", "--model", "foo")
    assert "not a known model" in other.stderr and "OpenAI" in other.stderr


def test_a_window_too_small_is_refused_with_one_minimum_wherever_it_was_given(cli):
    """--context-window 1000 was refused by the flag as under 1,024, and 1,024 to 5,119 then by the
    session as under 5,120: two minimums, the first one wrong. Every too small window, from the flag
    or a config file, now gets the session's one line with the one real minimum."""
    minimums = set()
    for window in ("5", "1000", "1024", "3072"):
        res = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--context-window", window)
        assert res.code == 2 and res.stderr.count("\n") == 1, (window, res.stderr)
        said = re.search(r"the minimum is ([\d,]+) \(--context-window\)$", res.stderr.strip())
        assert said, (window, res.stderr)
        minimums.add(int(said[1].replace(",", "")))
    [minimum] = minimums
    assert minimum > 3072
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("context_window = 1000\n")
    from_file = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1")
    assert from_file.code == 2 and from_file.stderr.count("\n") == 1, from_file.stderr
    assert from_file.stderr.strip().endswith(f"the minimum is {minimum:,} (context_window in {config})"), from_file.stderr
    assert cli.sessions() == []


def test_max_turns_append_system_prompt_and_instruction_files(cli):
    (cli.cwd / ".git").mkdir()
    sub = cli.cwd / "pkg"
    sub.mkdir()
    (cli.cwd / "AGENTS.md").write_text("ROOT RULE")
    (sub / "CLAUDE.md").write_text("PACKAGE RULE")
    cli.home.mkdir(parents=True)
    (cli.home / "AGENTS.md").write_text("USER RULE")  # beside the user config file
    with FakeOpenAIServer(failing_tools) as server:
        res = cli("-p", "go", *fake(server), "--yes", "--max-turns", "1", "--cwd", str(sub),
                  "--append-system-prompt", "APPENDED RULE")
    assert res.code == 1 and res.stderr.count("\n") == 1
    assert "stopped after 1 model request (--max-turns 1)" in res.stderr
    assert "request_limit" not in res.stderr and "http" not in res.stderr  # not the library's words or docs link
    assert len(server.requests) == 1
    system = system_text(server.requests[0])
    order = [system.index(x) for x in ("USER RULE", "ROOT RULE", "PACKAGE RULE", "APPENDED RULE")]
    assert order == sorted(order)
    with FakeOpenAIServer(lambda req: Reply.tools([("glob", {"pattern": "*"})])) as server:  # never done
        res = cli("-p", "go", *fake(server), "--max-turns", "2", "--output-format", "stream-json")
    last = json.loads(res.stdout.splitlines()[-1])
    assert last["subtype"] == "error_max_turns" and last["error"].startswith("stopped after 2 model requests")


def test_analyze_plot_into_a_missing_folder_is_one_line(cli, tmp_path):
    res = cli("analyze", str(tmp_path), "--plot", "/nonexistent/x.svg")
    assert res.code == 2 and "does not exist" in res.stderr and "Error" not in res.stderr


def test_verbose_tool_lines_count_the_whole_result(cli):
    from tests.ui.test_repl import big_results, result_of

    cli.cwd.joinpath("long.py").write_text("".join(f"x{i} = {i}\n" for i in range(241)))
    cli.cwd.joinpath("hits.txt").write_text("hit\n" * 150)
    with FakeOpenAIServer(big_results) as server:
        res = cli("-p", "go", *fake(server), "--yes", "--verbose")
    assert result_of(res.stderr, "read_file(long.py)", "241 lines"), res.stderr
    assert result_of(res.stderr, "grep(hit)", "150 matches"), res.stderr
    assert result_of(res.stderr, "bash(seq 1 3000; exit 3)", "exit code: 3 · 3000"), res.stderr


def test_habits_help_slash_commands_in_print_mode_and_short_session_ids(cli):
    helped = cli("help")
    assert helped.code == 0 and "Usage:" in helped.stdout
    with FakeOpenAIServer(lambda req: Reply.text("first answer")) as server:
        first = cli("-p", "remember this", *fake(server), "--output-format", "json")
        sid = first.json()["session_id"]
        status = cli("-p", "/status", *fake(server), "-r", sid[:15])  # a unique prefix of the id
        assert status.code == 0, status.stderr
        assert f"session {sid}" in status.stdout and "context" in status.stdout
        assert len(server.requests) == 1  # the command sent nothing to the model
        missing = cli("-p", "/status", *fake(server), "-r", "19990101")
        typo = cli("-p", "/compac", *fake(server), "-c")
        path = cli("-p", "/usr/lib is missing a file, why?", *fake(server), "-c")
    assert missing.code == 2 and "no session 19990101" in missing.stderr  # bad usage, as other flags
    assert typo.code == 2 and typo.stderr == "compact-agent: unknown command /compac; did you mean /compact? (nothing was sent)\n"
    assert path.code == 0 and len(server.requests) == 2  # a prompt that begins with a path is a prompt


def test_a_slash_command_that_refuses_its_arguments_is_bad_usage_in_print_mode(cli):
    """`-p "/compact --bogus"` used to print its usage line on stdout and exit 0: a script could not
    tell it failed. A refused command is bad usage (one line on stderr, exit 2, the JSON error
    object), a command of the REPL's own session is refused before a session is made, and words
    after a command that takes none are refused rather than ignored."""
    with FakeOpenAIServer(echo) as server:
        first = cli("-p", "remember this", *fake(server))
        assert first.code == 0, first.stderr
        refused = {line: cli("-p", line, *fake(server), "-c") for line in
                   ("/compact --bogus", "/model a b", "/expand zz", "/rewind x", "/cost extra", "/permissions x")}
        as_json = cli("-p", "/compact --bogus", *fake(server), "-c", "--output-format", "json")
        sessions = len(cli.sessions())
        repl_only = {line: cli("-p", line, *fake(server)) for line in ("/exit", "/q", "/clear", "/resume 2")}
        fine = cli("-p", "/cost", *fake(server), "-c")
    assert len(server.requests) == 1  # no command sent anything to the model
    for line, res in refused.items():
        assert res.code == 2 and res.stderr.count("\n") == 1 and res.stderr.startswith("compact-agent: "), (line, res)
        assert "Traceback" not in res.stderr and res.stdout == "", (line, res.stdout)
    assert "unknown option --bogus for /compact" in refused["/compact --bogus"].stderr
    assert "/model takes one model name; not understood: b" in refused["/model a b"].stderr
    assert "/cost takes no arguments; not understood: extra" in refused["/cost extra"].stderr
    assert "usage: /rewind N (a number from /rewind)" in refused["/rewind x"].stderr
    err = as_json.json()
    assert as_json.code == 2 and err["is_error"] and "unknown option --bogus" in err["error"]
    for line, res in repl_only.items():
        name = line.split()[0]
        assert res.code == 2 and res.stderr.startswith(f"compact-agent: {name} is a REPL command: "), (line, res.stderr)
    assert len(cli.sessions()) == sessions  # refused before a session was made
    assert fine.code == 0 and "tokens and cost" in fine.stdout, fine.stderr


def test_help_and_bad_values_read_as_written(cli):
    for args in (("--help",), ("analyze", "--help")):
        res = cli(*args)
        assert res.code == 0
        for machine in ("<list[Path]>", "{paths}", "<int", "<path>", "[x>=", "x>="):
            assert machine not in res.stdout, (args, machine)
    usage = cli("--help").stdout.splitlines()[0]  # QUERY or a command, neither required
    assert usage == "Usage: compact-agent [OPTIONS] [QUERY] | COMMAND [ARGS]...", usage
    analyze = cli("analyze", "--help").stdout
    assert "analyze [OPTIONS] PATH..." in analyze and "default 64,000, at least 2,048" in " ".join(analyze.split())
    missing = cli("analyze")
    assert missing.code == 2 and "analyze needs PATH..." in missing.stderr
    small = cli("--context-window", "0", "-p", "x")
    assert small.code == 2 and "--context-window: must be a positive number of tokens" in small.stderr
    assert "must be at least 1" in cli("--max-turns", "0", "-p", "x").stderr
    huge = cli("--context-window", "99999999999999999999", "-p", "x")
    assert huge.code == 2 and "--context-window: must be at most 10,000,000 tokens" in huge.stderr


def test_an_endpoint_that_is_not_an_address_is_refused_before_a_session(cli):
    """A mistyped --base-url is bad usage, said in words, and no session is made for it (it used
    to read as a network failure, or as an exception's text)."""
    for url, said in (("notaurl", "is not an http:// or https:// address"), ("ftp://x/v1", "is not an http://"),
                      ("http://[::1", "is not an address (an IPv6 host's [ has no closing ]"),
                      ("http://h:abc/v1", "is not an address (its port is not a number"),
                      # a pasted line break, a tab, a space: the HTTP client said it in its words, exit 1
                      ("http://127.0.0.1:9/v1\n", "is not an address (it holds a line break"),
                      ("http://127.0.0.1:9/\tv1", "is not an address (it holds a control character"),
                      ("http://127.0.0.1:9/v1 ", "is not an address (it holds a space")):
        res = cli("-p", "x", "--model", "m", "--api-key", "k", "--base-url", url)
        shown = "'" + url.replace("\n", "\\n") + "'"  # as words.quoted shows what was given
        assert res.code == 2 and res.stderr.startswith(f"compact-agent: --base-url: {shown} {said}"), res.stderr
        assert res.stderr.count("\n") == 1
    assert cli.sessions() == []


def test_an_empty_model_name_and_an_unknown_session_are_bad_usage(cli):
    """`--model ""` (or `model = ""` in a config file) is refused before any request, not sent to
    the provider as a model named ``; a `-r` id that names no session, or several, is bad usage."""
    with FakeOpenAIServer(echo) as server:
        flag = cli("-p", "hi", "--base-url", server.base_url, "--api-key", "k", "--model", "")
        (cli.home / "config.toml").parent.mkdir(parents=True, exist_ok=True)
        (cli.home / "config.toml").write_text('model = ""\n')
        file = cli("-p", "hi", "--base-url", server.base_url, "--api-key", "k")
        (cli.home / "config.toml").unlink()
        cli("-p", "one", *fake(server))
        cli("-p", "two", *fake(server))
        ambiguous = cli("-p", "hi", *fake(server), "-r", "2")
        unknown = cli("-p", "hi", *fake(server), "-r", "nosuchid", "--output-format", "json")
        assert len(server.requests) == 2  # only the two sessions' turns reached the model
    assert flag.code == 2 and flag.stderr == ("compact-agent: --model needs a model name (e.g. --model "
                                              "deepseek-chat), not an empty one\n")
    assert file.code == 2 and file.stderr.count("\n") == 1, file.stderr
    assert f"model: an empty name (from {cli.home / 'config.toml'})" in file.stderr
    assert ambiguous.code == 2 and "is the start of 2 sessions" in ambiguous.stderr
    assert ambiguous.stderr.count("\n") == 1
    assert unknown.code == 2 and unknown.stderr.startswith("compact-agent: no session nosuchid")


def test_model_without_a_name_in_print_mode_sets_the_window(cli):
    with FakeOpenAIServer(echo) as server:
        res = cli("-p", "/model --window 64000", *fake(server))
        extra = cli("-p", "/model a b c", *fake(server))
        assert server.requests == []
    assert res.code == 0 and "window 32,768 → 64,000 · model fake-model, as it was" in res.stdout, res.stderr
    assert "list index" not in res.stdout + res.stderr
    assert extra.code == 2 and "not understood: b c" in extra.stderr  # bad usage, as a bad flag


def _piped(cli, *args: str):
    """The real CLI with stdout and stderr pipes, for a test to read from and close."""
    from .held_request import start

    return start(cli, *args)


def test_a_reader_that_closes_the_pipe_mid_turn_ends_the_run_quietly_and_the_session_is_kept(cli):
    """`compact-agent -p ... --output-format stream-json | head -1` printed `compact-agent: Broken
    pipe` and exited 1. A reader that has what it wanted is no failure: the run ends without a word,
    with the status a shell gives any program SIGPIPE ended (141), the turn ends as an interrupted
    one (the reply streamed so far is kept, marked as cut), and `-c` goes on from the session."""
    import threading

    closed = threading.Event()

    def after_the_reader_left(req) -> Reply:
        if "go on" not in user_text(req):
            assert closed.wait(60)  # the reply streams only once the reader is gone
        return Reply.text("first part of a long answer. " * 40)

    with FakeOpenAIServer(after_the_reader_left) as server:
        proc = _piped(cli, "-p", "hello", *fake(server), "--output-format", "stream-json")
        first = json.loads(proc.stdout.readline())
        proc.stdout.close()
        closed.set()
        err = proc.stderr.read().decode()
        proc.stderr.close()
        code = proc.wait(timeout=120)
        assert first["type"] == "init"
        assert code == 141 and err == "", (code, err)
        [session] = cli.sessions()
        assert all(json.loads(line) for line in session.read_text().splitlines())
        resumed = cli("-p", "go on", *fake(server), "-c")
    assert resumed.code == 0 and resumed.stdout.startswith("first part of a long answer."), resumed.stderr
    sent = server.requests[-1].messages
    assert "hello" in user_text(server.requests[-1]) and any(m.get("role") == "assistant" for m in sent)
    assert cli.sessions() == [session]


def test_a_reader_gone_before_the_output_ends_text_and_slash_commands_quietly(cli):
    """`compact-agent -p hello | head -1` and `compact-agent -p /cost -c | head -1` with the reader
    gone before anything is written: exit 141 and nothing on stderr (they exited 1); the text-mode
    turn had finished before its answer was printed, so the session holds it whole."""
    with FakeOpenAIServer(lambda req: Reply.text("the whole answer")) as server:
        runs = []
        for args in (("-p", "hello", *fake(server)), ("-p", "/cost", "-c", *fake(server))):
            proc = _piped(cli, *args)
            proc.stdout.close()  # the reader is gone before the first line is written
            err = proc.stderr.read().decode()
            proc.stderr.close()
            runs.append((proc.wait(timeout=120), err))
        resumed = cli("-p", "and then?", *fake(server), "-c")
    assert runs == [(141, ""), (141, "")], runs
    assert resumed.code == 0, resumed.stderr
    sent = server.requests[-1].messages
    assert [message_text(m) for m in sent if m.get("role") == "assistant"] == ["the whole answer"]


def test_a_long_answer_cut_short_by_the_reader_is_141_not_0(cli):
    """A 210 KB answer `| head -1` exited 0: one write larger than the pipe's buffer returned what
    fit when the reader left, and the rest was dropped without an error. Written in pieces the pipe
    takes whole or refuses, the refusal is seen."""
    long = "".join(f"line {i} " + "x" * 60 + "\n" for i in range(3000))
    with FakeOpenAIServer(lambda req: Reply.text(long)) as server:
        for fmt in ("text", "json"):
            proc = _piped(cli, "-p", "hello", *fake(server), "--output-format", fmt)
            first = proc.stdout.read(10)  # the reader takes a little and leaves
            proc.stdout.close()
            err = proc.stderr.read().decode()
            proc.stderr.close()
            assert first and proc.wait(timeout=120) == 141 and err == "", (fmt, err)


def test_resume_without_an_id_where_there_is_no_session_is_an_error_as_continue_is(cli):
    """`-r` with no session to pick from said so and started a new session, where `-c` was an error."""
    empty = cli("-r", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1")
    assert empty.code == 1 and not cli.sessions(), empty.stderr
    assert empty.stderr == f"compact-agent: no earlier session in {cli.cwd} to resume; start one without --resume\n"
