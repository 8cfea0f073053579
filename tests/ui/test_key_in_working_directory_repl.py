"""The REPL names the archive of a compaction (an automatic one, a /model switch's) with a provider
key in its path redacted: the home folder in a directory named with the key (`~/proj/sk-proj-…/home`)
put the key on the terminal, under the compaction's line; and /memory and /permissions name the
instruction file and the working directory with it redacted. (The sessions folder's own name holds
no key: session/files.py.)"""

from __future__ import annotations

from compact_agent.context.plumbing import secrets

from .repl_driver import drive
from .test_compaction_line import talker

KEY = "sk-proj-Zq8XkT3vRw9LmN2pQa7sYb4cTT11"


async def test_paths_on_the_terminal_have_the_key_redacted(tmp_path, monkeypatch) -> None:
    for name, empty in (("registered_keys", set()), ("key_forms", set()), ("_spread", []), ("_bodies", set()),
                        ("_pieces", None)):
        monkeypatch.setattr(secrets, name, empty)  # registered for this test only
    secrets.register(KEY)
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("COMPACT_AGENT_COLLAPSE_ENABLED", "false")  # the conversation grows to the threshold
    work = tmp_path / "work" / KEY
    (work / "project").mkdir(parents=True)
    (work / "project" / "AGENTS.md").write_text("Run the tests with make test.\n")
    typed = [f"question {i} about the parser\r" for i in range(8)]
    switch = "/model fake-model --window 4200\r"  # over its threshold: compacted first
    run = await drive(work, talker(20, 400), [*typed[:3], switch, *typed[3:], "/history\r", "/memory\r",
                                              "/permissions\r"], context_window=8_000)
    lines = run.out.splitlines()
    archived = [line for line in lines if line.startswith("full transcript archived at ")]
    switched = next(i for i, line in enumerate(lines) if line.startswith("window 8,000 → 4,200 · "))
    made = next(i for i, line in enumerate(lines) if line.startswith("compacted to fit the new 4,200-token window"))
    assert len(archived) > 1 and switched < made and lines[made + 1] in archived, run.out  # the switch's, auto ones
    assert all(line.startswith(f"full transcript archived at {tmp_path}/work/[REDACTED]/home/projects/")
               for line in archived), archived
    assert f"{tmp_path}/work/[REDACTED]/home/projects/" in run.out.split("/history")[-1]  # its archives
    shown = f"{tmp_path}/work/[REDACTED]/project"
    assert f"  1. {shown}/AGENTS.md  (30 characters)" in run.out.splitlines()  # /memory, on one line
    assert f"writable         {shown}" in run.out.splitlines()  # /permissions
    assert KEY not in run.out and KEY[8:] not in run.out
