"""Stdin is read as read_file reads a file: `head -c 3000000 /dev/urandom | compact-agent -p explain`
said `stdin is not UTF-8; it is read as Latin-1` and sent some 750K tokens of noise, where read_file
refuses a binary file. Binary input (a NUL byte without a byte-order mark, or a mark its bytes do not
follow) is now one line, exit 2, nothing sent; text with a mark is read in the encoding it names,
and 8-bit text as Windows-1252 or Latin-1, as read_file says of a file."""

from __future__ import annotations

import codecs
import json
import random

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def asked(req) -> str:
    return [message_text(m) for m in req.messages if m.get("role") == "user"][-1]


NOISE = random.Random(7).randbytes(300_000)  # as /dev/urandom gives: NUL bytes among the first few hundred


@pytest.mark.parametrize(("args", "data", "why"), [
    (("-p", "explain"), NOISE, "it holds a NUL byte"),
    (("-p", "-"), NOISE, "it holds a NUL byte"),
    (("-p", "explain"), b"a log line\n" * 2000 + b"\0tail", "it holds a NUL byte"),  # past the first 8 KB too
    (("-p", "explain"), codecs.BOM_UTF8 + b"caf\xe9", "its bytes do not follow its byte-order mark"),
    (("-p", "explain"), codecs.BOM_UTF8 + b"\x00abc", "it holds a NUL byte"),  # UTF-8 whole: the NUL is why
])
def test_binary_stdin_is_refused_in_one_line(cli, args, data, why):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        res = cli(*fake(server), *args, input=data)
    assert (res.code, res.stdout) == (2, "")
    assert res.stderr == f"compact-agent: stdin is binary data, not text ({why}): nothing was sent\n"
    assert server.requests == [] and cli.sessions() == []


def test_asked_for_json_the_line_is_also_the_error_object(cli):
    res = cli("-p", "explain", "--output-format", "json", "--model", "fake-model", input=NOISE)
    assert res.code == 2 and json.loads(res.stdout)["error"] == (
        "stdin is binary data, not text (it holds a NUL byte): nothing was sent")


@pytest.mark.parametrize(("data", "text", "note"), [
    ("hello there\n".encode("utf-16"), "hello there", "stdin is not UTF-8; it is read as UTF-16 LE"),
    (b"\x93caf\xe9\x94\n", "\u201ccaf\u00e9\u201d", "stdin is not UTF-8; it is read as Windows-1252"),
    (b"caf\xe9 au lait\n", "caf\u00e9 au lait", "stdin is not UTF-8; it is read as Latin-1"),
    (b"caf\xc3\xa9 \xff\n", "caf\u00e9 \ufffd", "stdin is UTF-8 but for 1 byte that is not, sent as \ufffd"),
    (codecs.BOM_UTF8 + "na\u00efve\n".encode(), "na\u00efve", None),
])
def test_text_is_read_as_read_file_reads_it(cli, data, text, note):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        res = cli(*fake(server), "-p", "explain", input=data)
    assert res.code == 0, res.stderr
    assert asked(server.requests[0]) == f"explain\n\n{text}\n"
    assert (f"compact-agent: note: {note}\n" in res.stderr) if note else "note" not in res.stderr, res.stderr
