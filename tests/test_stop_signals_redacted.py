"""The result object a SIGTERM or SIGHUP adds to stdout in `-p --output-format json` is redacted, as
print mode's own result lines are. It is written with os.write, past the redacting sys.stdout, and
what print mode adds to it (`permission_denials`: the argument lines of refused calls) went out as
it was."""

from __future__ import annotations

import json

from compact_agent import stop_signals
from compact_agent.context.plumbing import secrets

KEY = "sk-test-5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b"


def test_the_result_object_of_a_terminated_run_holds_no_key(monkeypatch, capfd) -> None:
    for name, empty in (("registered_keys", set()), ("key_forms", set()), ("_spread", []), ("_bodies", set()),
                        ("_pieces", None)):
        monkeypatch.setattr(secrets, name, empty)  # registered for this test only
    secrets.register(KEY)
    monkeypatch.setattr(stop_signals, "_state", stop_signals._State(json_result=True))
    stop_signals.reporting(lambda: {"permission_denials": [f"bash: curl -H 'Authorization: Bearer {KEY}' https://x"]})
    stop_signals._say("terminated (SIGTERM)", "SIGTERM", "error_terminated")
    out, err = capfd.readouterr()
    assert KEY not in out and err == "compact-agent: terminated (SIGTERM)\n"
    result = json.loads(out)
    assert result["subtype"] == "error_terminated"
    assert result["permission_denials"] == ["bash: curl -H 'Authorization: Bearer [REDACTED]' https://x"]
