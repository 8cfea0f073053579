"""Sessions whose prompt never got an answer are marked alike in `sessions`, `-r`'s list and
`/resume`, and retries of one failed start take one line. A run that could not reach the model
(an endpoint that is down) was not marked `(unanswered)` while one without a key was, and one
killed while starting stayed marked after `-c` got its answer; every retry of a failed start left a
`hi` line of its own."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages

from .test_print_prompt_saved_early import fake
from .test_resume_after_failures import dead_endpoint, killed_while_starting


def rows(cli, *args: str) -> list[str]:
    res = cli("sessions", *args)
    assert res.code == 0, res.stderr
    *listed, where = res.stdout.splitlines()  # the sessions, then the folder they are kept in
    assert where.startswith("sessions folder: "), res.stdout
    return [" ".join(line.split()[3:]) for line in listed]  # count, "messages", prompt, mark


def test_every_session_the_model_never_answered_is_marked_alike(cli):
    down = dead_endpoint()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        killed_while_starting(cli, "-p", "killed then answered", *fake(server))
        assert cli("-c", "-p", "go on", *fake(server)).code == 0
        assert cli("-p", "endpoint down", "--model", "fake-model", "--base-url", down, "--api-key", "k").code == 1
        assert cli("-p", "no key", "--model", "deepseek-chat").code == 1
        killed_while_starting(cli, "-p", "stopped while starting", *fake(server))
        assert cli("-p", "answered", *fake(server)).code == 0
    assert rows(cli) == ["2 messages answered", "1 message stopped while starting (unanswered)",
                         "1 message no key (unanswered)", "1 message endpoint down (unanswered)",
                         "3 messages killed then answered"]  # its prompt, and the answer to `go on` after it


def test_retries_of_a_failed_start_take_one_line_and_none_is_lost(cli):
    down = dead_endpoint()
    with FakeOpenAIServer(lambda req: Reply.text("hello")) as server:
        assert cli("-p", "earlier work", *fake(server)).code == 0
        for _ in range(3):
            assert cli("-p", "hi", "--model", "fake-model", "--base-url", down, "--api-key", "k").code == 1
        assert rows(cli) == ["1 message hi (unanswered, tried 3 times)", "2 messages earlier work"]
        assert rows(cli, "--all") == ["1 message hi (unanswered)"] * 3 + ["2 messages earlier work"]
        newest = cli("sessions").stdout.split()[0]
        again = cli("-r", newest, "-p", "go on", *fake(server))  # the one the listing names sends it again
        assert again.code == 0, again.stderr
        assert [m["content"] for m in user_messages(server.requests[-1])] == ["hi", "go on"]
    assert rows(cli) == ["3 messages hi", "1 message hi (unanswered, tried 2 times)", "2 messages earlier work"]


async def test_the_resume_command_lists_them_alike(cli, tmp_path):
    from tests.ui.repl_driver import drive

    assert cli.home == tmp_path / "home" and cli.cwd == tmp_path / "project"  # where the driven REPL runs
    down = dead_endpoint()
    for _ in range(2):
        assert cli("-p", "hi", "--model", "fake-model", "--base-url", down, "--api-key", "k").code == 1
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/resume\r"])
    listed = [line for line in run.out.splitlines() if line.lstrip().startswith(("1.", "2."))]
    assert len(listed) == 1 and listed[0].endswith("hi  (unanswered, tried 2 times)"), run.out


def test_continue_goes_on_with_the_conversation_a_failed_start_interrupted(cli):
    """One mistyped command line (a model the server does not have) left a failed start, and `-c`
    went on there: the model got the failed prompt and none of the work before it."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "my real work", *fake(server)).code == 0
        typo = [a if a != "fake-model" else "fake-modle" for a in fake(server)]
        assert cli("-p", "oops", *typo).code == 1
        failed, real = [line.split()[0] for line in cli("sessions").stdout.splitlines()[:-1]]
        again = cli("-c", "-p", "continue my work", *fake(server))
        assert again.code == 0, again.stderr
        assert [m["content"] for m in user_messages(server.requests[-1])] == ["my real work", "continue my work"]
        assert (f"compact-agent: note: continuing session {real} (my real work), the newest one the model answered "
                f"in; passed over the newer session {failed} (oops), which it never answered: compact-agent -r "
                f"{failed} goes on there") in again.stderr.splitlines(), again.stderr
        answered = cli("-c", "-p", "and more", *fake(server))  # the newest now: nothing to say
        opened = cli("-r", failed, "-p", "back", *fake(server))  # -r opens the one named, and sends its prompt
        assert [m["content"] for m in user_messages(server.requests[-1])] == ["oops", "back"]
    assert answered.code == 0 and "passed over" not in answered.stderr
    assert opened.code == 0 and "passed over" not in opened.stderr


def test_continue_says_which_session_it_opens_before_a_start_that_fails(cli):
    """A start that failed on a missing key, then `-c` failing on it again: the note that names the
    conversation `-c` goes on with came after the key check, so nothing was said, and once the key
    was right the model was in the failed start, with none of the earlier conversation."""
    with FakeOpenAIServer(lambda req: Reply.text(f"{len(user_messages(req))} user messages")) as server:
        assert cli("-p", "make greet() say hello", *fake(server)).code == 0
        no_key = cli("-p", "what did you change?", "--model", "deepseek-chat")
        assert no_key.code == 1 and "DEEPSEEK_API_KEY is not set" in no_key.stderr, no_key.stderr
        failed, real = [line.split()[0] for line in cli("sessions").stdout.splitlines()[:-1]]
        assert no_key.stderr.rstrip().endswith(f"; the session is saved: `compact-agent -r {failed} -p ...` continues it"), \
            no_key.stderr  # where its prompt is: -c would not open it
        note = (f"compact-agent: note: continuing session {real} (make greet() say hello), the newest one the model "
                f"answered in; passed over the newer session {failed} (what did you change?), which it never "
                f"answered: compact-agent -r {failed} goes on there")
        res = cli("-c", "-p", "what did you change?", "--model", "deepseek-chat")
        assert res.code == 1 and res.stderr.splitlines()[0] == note, res.stderr
        done = cli("-c", "-p", "what did you change?", *fake(server))
        assert done.code == 0, done.stderr
        sent = [m["content"] for m in user_messages(server.requests[-1])]
        assert sent[0] == "make greet() say hello" and sent[-1] == "what did you change?", sent


async def test_the_repl_continues_the_conversation_too(cli, tmp_path):
    from tests.ui.repl_driver import drive

    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "make greet() say hello", *fake(server)).code == 0
        assert cli("-p", "what did you change?", "--model", "deepseek-chat").code == 1
        await drive(tmp_path, lambda req: Reply.text("ok"), ["what did you change?\r"], server=server,
                    continue_last=True)
        sent = [m["content"] for m in user_messages(server.requests[-1])]
    assert sent == ["make greet() say hello", "what did you change?"], sent


def test_deleting_a_row_of_retries_says_the_older_tries_it_leaves(cli):
    """`sessions --delete ID` of a `tried 3 times` row removes that session alone, as it says; the
    row came back `tried 2 times`, as if nothing had been removed, with no word of the others."""
    down = dead_endpoint()
    for _ in range(3):
        assert cli("-p", "hi", "--model", "fake-model", "--base-url", down, "--api-key", "k").code == 1
    newest = cli("sessions").stdout.split()[0]
    dry = cli("sessions", "--delete", newest, "--dry-run")
    assert dry.code == 0 and f"would remove session {newest}" in dry.stdout, dry.stdout
    assert "would leave 2 older failed starts with the same first prompt" in dry.stdout, dry.stdout
    res = cli("sessions", "--delete", newest)
    assert res.code == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith(f"removed session {newest}:"), res.stdout
    assert lines[1] == ("left 2 older failed starts with the same first prompt, which the listing counted in its "
                        "row (compact-agent sessions --all lists them; --delete ID removes each)"), res.stdout
    assert rows(cli) == ["1 message hi (unanswered, tried 2 times)"]
    last = cli("sessions", "--delete", cli("sessions").stdout.split()[0])
    assert "left 1 older failed start with the same first prompt" in last.stdout and "lists it;" in last.stdout
    alone = cli("sessions", "--delete", cli("sessions").stdout.split()[0])
    assert len(alone.stdout.splitlines()) == 1, alone.stdout  # nothing left behind: no line for it


def test_a_failed_start_says_the_resume_that_goes_on_with_it_when_c_would_not(cli):
    """`the session is saved: compact-agent -c -p ... continues it` after a new session's start failed
    sent the user, once `-c` passed that session over, to the older conversation."""
    down = dead_endpoint()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        first = cli("-p", "endpoint down", "--model", "fake-model", "--base-url", down, "--api-key", "k")
        assert first.code == 1 and "`compact-agent -c -p ...` continues it" in first.stderr, first.stderr  # none older
        assert cli("-c", "-p", "answered now", *fake(server)).code == 0
        assert cli("-p", "my real work", *fake(server)).code == 0
        res = cli("-p", "endpoint down again", "--model", "fake-model", "--base-url", down, "--api-key", "k")
        newest = cli("sessions").stdout.split()[0]
        assert res.code == 1 and f"`compact-agent -r {newest} -p ...` continues it" in res.stderr, res.stderr
        again = cli("-r", newest, "-p", "go on", *fake(server))
        assert again.code == 0, again.stderr
        assert [m["content"] for m in user_messages(server.requests[-1])] == ["endpoint down again", "go on"]


def test_a_slash_command_failing_in_a_session_c_passes_over_names_its_resume(cli):
    down = dead_endpoint()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "my real work", *fake(server)).code == 0
        assert cli("-p", "endpoint down", "--model", "fake-model", "--base-url", down, "--api-key", "k").code == 1
    newest = cli("sessions").stdout.split()[0]
    res = cli("-r", newest, "-p", "/init", "--model", "fake-model", "--base-url", down, "--api-key", "k")
    assert res.code == 1 and f"`compact-agent -r {newest} -p ...` continues it" in res.stderr, res.stderr


def test_retries_past_the_rows_listed_still_count(cli):
    """The listing stops at its rows (20): the older retries of a failed start it lists were not
    counted once they fell past them, and the same `hi` said 'tried 5 times', later 'tried 3 times'.
    Shown here with one row listed."""
    from compact_agent.agent.run.options import session_root
    from compact_agent.ui.sessions_list import session_rows, unlisted_line

    down = dead_endpoint()
    with FakeOpenAIServer(lambda req: Reply.text("hello")) as server:
        assert cli("-p", "earlier work", *fake(server)).code == 0
    for _ in range(3):
        assert cli("-p", "hi", "--model", "fake-model", "--base-url", down, "--api-key", "k").code == 1
    root = session_root(cli.cwd.resolve(), cli.home)
    [row] = session_rows(root, limit=1)
    assert (row.first_prompt, row.unanswered, row.folded) == ("hi", True, 2)  # was 0: the listing ended at it
    assert unlisted_line(root, [row], "-r ID") == ("… 1 older session not listed (compact-agent sessions --all "
                                                   "lists every one; -r ID opens any)")  # earlier work
