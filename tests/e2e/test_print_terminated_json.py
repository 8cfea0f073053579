"""`-p --output-format json` (and stream-json) ended by SIGTERM or SIGHUP still ends stdout with a
result object: a script that parses the last line of stdout was left with nothing (json) or with
no result line (stream-json). The object says the run was terminated, by which signal, and the
session its prompt is saved in, in the fields of a failed run's result; the exit is still the
signal's, and stderr says the one line it said before."""

from __future__ import annotations

import json
import signal

import pytest

from .held_request import terminated
from .test_print_terminated import LINE


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_json_output_ends_with_a_result_that_says_the_run_was_terminated(cli, sig):
    code, lines, err = terminated(cli, sig, "--output-format", "json")
    assert code == -sig and err == LINE.format(sig.name)  # as in text mode
    assert len(lines) == 1, lines
    result = json.loads(lines[0])
    [session] = cli.sessions()
    assert result["type"] == "result" and result["is_error"] is True and result["result"] is None
    assert result["subtype"] == "error_terminated" and result["signal"] == sig.name
    assert result["error"] == LINE.format(sig.name).removeprefix("compact-agent: ").rstrip("\n")
    assert result["session_id"] == session.stem
    assert isinstance(result["duration_ms"], int)
    # the held request counts: it was sent (the server holds it), though no answer came and its tokens are unknown
    assert result["num_turns"] == 1 and result["usage"]["requests"] == 1 and result["usage"]["input_tokens"] == 0
    assert result["permission_denials"] == [] and result["compactions"] == []


def test_stream_json_ends_with_the_result_line_too(cli):
    code, lines, _ = terminated(cli, signal.SIGTERM, "--output-format", "stream-json")
    assert code == -signal.SIGTERM
    objects = [json.loads(line) for line in lines]
    assert objects[0]["type"] == "init" and objects[-1]["type"] == "result"
    assert objects[-1]["subtype"] == "error_terminated" and objects[-1]["session_id"] == objects[0]["session_id"]
    assert [o for o in objects if o["type"] == "result"] == [objects[-1]]


def test_text_output_gets_no_result_object(cli):
    code, lines, err = terminated(cli, signal.SIGTERM)
    assert code == -signal.SIGTERM and lines == [] and err == LINE.format("SIGTERM")
