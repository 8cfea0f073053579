"""A slash command's JSON result carries its tables plain. `-c -p /cost --output-format json` put
rich's box-drawn table in the `result` string ('   tokens and cost, whole session (every run)\\n┏━━━━
━━━━━━┳━━━━━━━┳…'), and so did /status its table of what the layers keep out; a script had to strip
the rules and the title's centring before it could read a figure. Now a title is a line of its
own, the column names a line, each row a line: no box drawing, no padding at a line's start or end."""

from __future__ import annotations

import re

from rich.table import Table

from compact_agent.ui.plain_console import PlainConsole
from tests.fakes.openai_server import FakeOpenAIServer, Reply

BOX_DRAWING = re.compile("[\u2500-\u257f]")


def test_cost_and_status_json_results_have_no_box_drawing(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", "--context-window", "8k")
        assert cli("-p", "hello", *args).code == 0
        cost = cli("-c", "-p", "/cost", *args, "--output-format", "json")
        status = cli("-c", "-p", "/status", *args, "--output-format", "json")
    for run in (cost, status):
        assert run.code == 0, run.stderr
        text = run.json()["result"]
        assert not BOX_DRAWING.search(text), text
        assert not [line for line in text.splitlines() if line != line.rstrip()], text
    lines = cost.json()["result"].splitlines()
    assert lines[0] == "tokens and cost, whole session (every run)", lines  # not centred over the table
    assert re.fullmatch(r"requests\s+input\s+cache hit\s+cache miss\s+output\s+cost\s+kind · model", lines[1]), lines
    assert re.fullmatch(r"\s*1\s+[\d,]+\s+0\s+[\d,]+\s+1\s+unknown\s+main · fake-model", lines[2]), lines
    status_lines = status.json()["result"].splitlines()
    assert any(re.fullmatch(r"what the layers keep out of the context now\s+tokens", line)
               for line in status_lines), status_lines


def test_a_table_inside_another_renderable_is_drawn_plain_too() -> None:
    import io

    from rich.console import Group

    t = Table(title="figures", caption="a note", show_header=True)
    t.add_column("name")
    t.add_column("n", justify="right")
    t.add_row("alpha", "1")
    grid = Table.grid(padding=(0, 3))  # no box: laid out as it was
    grid.add_row("a", "b")
    out = io.StringIO()
    PlainConsole(file=out, width=200, highlight=False, markup=False).print(Group(t, grid))
    assert [line.rstrip() for line in out.getvalue().splitlines()] == \
        ["figures", "name   n", "alpha  1", "a note", "a   b"]
