"""`/resume ID` of a file under a session's name that is no session (random bytes) is one line, the
REPL goes on in its own session, and the file is left as it is: it was opened, its end cut off into
`set-aside/torn-line-*.bin` and the conversation appended to the rest."""

from __future__ import annotations

import random

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive


async def test_resume_of_a_file_that_is_no_session_is_one_line_and_writes_nothing(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("still here")) as server:
        await drive(tmp_path, None, ["hi\r"], server=server)
        [mine] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
        other = mine.with_name("20991231-000000-abcdef.jsonl")
        rng = random.Random(3)
        junk = bytes(rng.randrange(256) for _ in range(2000)).replace(b'{"', b"x")
        other.write_bytes(junk)
        run = await drive(tmp_path, None, [f"/resume {other.stem}\r", "again\r"], server=server,
                          session_id=mine.stem)
    said = (f"session {other.stem} cannot be opened: {other} is not a session file (no line of it is a session "
            "entry); it is left as it is")
    assert "".join(said.split()) in "".join(run.out.split()), run.out  # wrapped at 200 columns, the path too
    assert "Traceback" not in run.out and run.prompts[-1] == "again"
    assert other.read_bytes() == junk and not (other.parent / other.stem).exists()
    assert b"again" in mine.read_bytes()
