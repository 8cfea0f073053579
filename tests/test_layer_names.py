"""The view layers' names are written once, `LAYER_NAMES` (context/plumbing/events.py).

The terminal's /status table (`ui/render.py` `savings_table`), the demo's layer lines (`demo.py`),
the analyzer's labels (`replay/report.py` `LAYER_LABELS`) and /status's count of what each layer
keeps out (`agent/accounting/kept_out.py`) each wrote the four names again as plain strings: a layer
renamed or added there would have been left out of them with no test failing.
"""

from __future__ import annotations

import re
import sys

import compact_agent
from compact_agent.context.layers.order import default_layers
from compact_agent.context.plumbing.events import EVENT_TYPES, LAYER_NAMES
from compact_agent.context.plumbing.settings import CompactionSettings
from compact_agent.replay.report_table import LAYER_LABELS
from compact_agent.ui.render import savings_table

from .test_layout import ROOT

READERS = ("ui/render.py", "demo.py", "replay/report.py", "agent/accounting/kept_out.py")


def test_the_names_are_the_layers_in_their_order() -> None:
    assert LAYER_NAMES == tuple(layer.name for layer in default_layers(CompactionSettings()))
    assert LAYER_NAMES == ("budget", "snip", "microcompact", "collapse")
    assert set(LAYER_NAMES) <= set(EVENT_TYPES)


def test_what_reads_them_says_what_it_said() -> None:
    assert {k: LAYER_LABELS[k] for k in LAYER_NAMES} == {"budget": "L1", "snip": "L2", "microcompact": "L3",
                                                         "collapse": "L4"}
    from rich.console import Console

    console = Console(width=80, record=True, color_system=None, file=sys.stdout)
    console.print(savings_table({"budget": 1_200, "snip": 3, "microcompact": 0, "collapse": 45_000}))
    rows = [line for line in console.export_text().splitlines() if re.search(r"\d", line)]
    assert [re.sub(r"[│|\s]+", " ", r).strip() for r in rows] == [
        "large tool results moved to files (a preview stays) 1,200",
        "empty results, repeated reminders, earlier identical reads dropped 3",
        "old tool results cleared 0", "old rounds folded into a digest 45,000"]


def test_no_reader_writes_the_names_again() -> None:
    quoted = "|".join(f'"{n}"' for n in LAYER_NAMES)
    again = {}
    for path in READERS:
        text = (ROOT / path).read_text(encoding="utf-8")
        found = re.findall(rf"(?:{quoted})\s*[,)\]:]\s*(?:{quoted}|\"L\d\")", text)  # a list of them, or labels
        if path.endswith("kept_out.py"):
            found += re.findall(quoted, text)  # it reads the layers by name: none of them as a string
        if found:
            again[path] = found
    assert again == {}, f"write the layers' names from LAYER_NAMES ({compact_agent.__name__}.context.plumbing.events)"
