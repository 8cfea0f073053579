"""Under a wrapper (a shell script, `timeout`, `make`) the key sits in the parent's /proc files,
which the agent cannot wipe: a command may read them. What reaches the provider, the session and
the output must still not carry the key, in plain text or in its common transforms."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, message_text, tool_results

from .common import KEY, REPO, cli_args
from .test_confinement_secrets import Script

ENV_KEY = "sk-env-fedcba9876543210fedcba9876543210"
PROBE = (
    "G=$(awk '{print $4}' /proc/$PPID/stat); "
    "E=$(tr '\\0' '\\n' < /proc/$G/environ | grep -a _API_KEY); C=$(tr '\\0' ' ' < /proc/$G/cmdline); "
    "echo \"$E\" | rev; echo \"$C\" | rev; echo \"$E\" | base64; echo \"$C\" | base64 -w 16; "
    "echo \"$E\" | fold -w 6; echo \"$C\" | sed 's/./& /g'"
)


def forms(key: str) -> list[str]:
    out = [key, key[::-1]]
    for pad in ("", "x", "xy"):
        enc = base64.b64encode((pad + key).encode()).decode()
        out.append(enc[4:len(enc) - 4])
    return out


def test_the_key_in_a_wrappers_proc_files_reaches_nothing(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    script = Script([[("bash", {"command": PROBE})]])
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("COMPACT_AGENT_")}
    env.update({"COMPACT_AGENT_HOME": str(home), "PYTHONPATH": str(REPO / "src"), "OPENAI_API_KEY": ENV_KEY})
    with FakeOpenAIServer(script, api_key=KEY) as server:
        # `sh -c '…; exit $?'` stays the agent's parent (no exec), holding the key in both its files
        proc = subprocess.run(["sh", "-c", f'{sys.executable} -m compact_agent.cli "$@"; exit $?', "sh",
                               *cli_args(server, "probe"), "--api-key", KEY],
                              cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = message_text(tool_results(script.main[1])[0])
    assert "YEK_IPA_IANEPO" in out and "yek-ipa--" in out, out  # the command did read the wrapper's files
    assert "[REDACTED]" in out
    saved = "".join(p.read_text(errors="replace") for p in home.rglob("*") if p.is_file())
    sent = "".join(message_text(m) for r in server.requests for m in r.messages)
    for key in (KEY, ENV_KEY):
        for form in forms(key):
            for where in (out, sent, saved, proc.stdout, proc.stderr):
                assert form not in where.replace("\n", "").replace(" ", "")


def test_the_key_cut_into_pieces_by_commands_reaches_nothing(tmp_path: Path) -> None:
    """A project's .env holds the same key: commands that print it in pieces (`cut`, two halves)
    send no piece of its random part of eight characters or more to the provider, the session or
    the output (each is redacted whole, as far as it goes on matching the key)."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    (cwd / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    # after `OPENAI_API_KEY=`, each a command of its own: the two halves, and eight in the middle
    cuts = ["cut -c16-35 .env", "cut -c36- .env", "cut -c28-35 .env"]
    script = Script([[("bash", {"command": c})] for c in cuts])
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("COMPACT_AGENT_")}
    env.update({"COMPACT_AGENT_HOME": str(home), "PYTHONPATH": str(REPO / "src")})
    with FakeOpenAIServer(script, api_key=KEY) as server:
        proc = subprocess.run([sys.executable, "-m", "compact_agent.cli", *cli_args(server, "pieces"), "--api-key", KEY],
                              cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    outs = [message_text(tool_results(script.main[k])[0]) for k in (1, 2, 3)]
    assert outs[0].startswith("sk-test-[REDACTED]") and all(o.startswith("[REDACTED]") for o in outs[1:]), outs
    out = "".join(outs)
    body = KEY[len("sk-test-"):]
    saved = "".join(p.read_text(errors="replace") for p in home.rglob("*") if p.is_file())
    sent = "".join(message_text(m) for r in server.requests for m in r.messages)
    pieces = {body[i:i + 8] for i in range(len(body) - 7)}
    for where in (out, sent, saved, proc.stdout, proc.stderr):
        assert not [p for p in pieces if p in where], where
