"""`autocompact_buffer = -5` and `bash_timeout_s = "x"` in config.toml: the command line says both
in one line and exits 2 (it said the first, and the second once the first was fixed)."""

from __future__ import annotations


def test_the_command_line_says_them_all_and_exits_2(cli) -> None:
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('autocompact_buffer = -5\nbash_timeout_s = "x"\n')
    run = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k")
    assert run.code == 2 and run.stdout == "", run.stdout + run.stderr
    [line] = run.stderr.splitlines()
    assert line.startswith(f"compact-agent: bad values for 2 settings (from {config}): autocompact_buffer: ") and \
        "; bash_timeout_s: expected a number" in line, line
