"""`/config` shows the window the session runs at and where it came from: with no window set it
said `context_window  null  default` while the session ran at an assumed 32,768 tokens."""

from __future__ import annotations

import re


def row(out: str, setting: str) -> tuple[str, str]:
    found = re.search(rf"^{setting}\s+(\S+)\s+(.+?)\s*$", out, re.MULTILINE)
    assert found is not None, out
    return found[1], found[2]


def test_config_names_the_window_in_use_and_whence(cli) -> None:
    unknown = cli("-p", "/config", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k")
    known = cli("-p", "/config", "--model", "deepseek-chat", "--api-key", "k")
    given = cli("-p", "/config", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k",
                "--context-window", "20k")
    for res in (unknown, known, given):
        assert res.code == 0, res.stdout + res.stderr
    assert row(unknown.stdout, "context_window") == ("32768", "assumed: fake-model is not a known model "
                                                               "(set context_window)"), unknown.stdout
    assert row(known.stdout, "context_window")[1] == "the model's own (deepseek-chat)", known.stdout
    assert row(known.stdout, "context_window")[0] != "null"
    assert row(given.stdout, "context_window") == ("20000", "flag"), given.stdout
