"""`-p /status` in a new session showed a session id that is never saved: a command alone starts no
session, and `-r ID` then said there is no such session. The id says it is not saved; once the
session holds a message, the id stands alone."""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_prompt_saved_early import fake


def test_status_of_a_new_session_says_its_id_is_not_saved(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        new = cli("-p", "/status", *fake(server))
        left = cli.sessions()
        cli("-p", "hi", *fake(server))
        resumed = cli("-c", "-p", "/status", *fake(server))
    shown = " ".join(new.stdout.split())  # the note may wrap at the terminal's width
    [unsaved] = re.findall(r"session (\S+) \(not saved: a command alone starts no session\)", shown)
    assert new.code == 0 and not left, new.stdout
    assert "no session" in cli("-r", unsaved, "-p", "/status").stderr
    [saved] = cli.sessions()
    assert resumed.code == 0 and re.search(rf"session +{saved.stem}\n", resumed.stdout), resumed.stdout
    assert "not saved" not in resumed.stdout


def test_the_json_result_names_no_session_that_is_not_saved(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        new = cli("-p", "/status", *fake(server), "--output-format", "json")
        turn = cli("-p", "hi", *fake(server), "--output-format", "json")
        resumed = cli("-c", "-p", "/cost", *fake(server), "--output-format", "json")
    [saved] = cli.sessions()
    assert new.code == 0 and new.json()["session_id"] is None
    assert turn.json()["session_id"] == resumed.json()["session_id"] == saved.stem
