"""`-p /memory` ends with what /memory N does in print mode: it prints the file's path, where the
footer said '/memory N opens one in $EDITOR', which only the REPL does."""

from __future__ import annotations


def test_print_mode_memory_says_n_prints_the_path(cli) -> None:
    (cli.cwd / "AGENTS.md").write_text("# notes\n")
    r = cli("-p", "/memory", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k")
    assert r.code == 0, r.stderr
    assert "/memory N prints its path (the REPL's /memory N opens it in $EDITOR)" in r.stdout, r.stdout
    assert "opens one in $EDITOR" not in r.stdout
    shown = cli("-p", "/memory 1", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k")
    assert shown.code == 0 and str(cli.cwd / "AGENTS.md") in shown.stdout, shown.stdout + shown.stderr
