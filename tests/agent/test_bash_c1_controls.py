"""A command's output reaches the model without the 8-bit forms of the escape sequences either.

The 7-bit ones (`ESC ]` a title, `ESC [` a cursor move) were removed and said removed, but the
same sequences written as one C1 control in UTF-8 (`\\xc2\\x9d` OSC … `\\xc2\\x9c` ST, `\\xc2\\x9b`
CSI, `\\xc2\\x90` DCS), which a terminal obeys as well, reached the model as they came."""

from __future__ import annotations

import random
from pathlib import Path

from compact_agent.agent.tools.screen import Screen
from tests.agent.test_tools import call, make_env


def _fed(data: bytes, cuts: list[int]) -> tuple[bytes, int]:
    screen, out, at = Screen(), b"", 0
    for cut in [*cuts, len(data)]:
        out += screen.feed(data[at:cut])
        at = cut
    return out + screen.end(), screen.escapes


def test_8bit_sequences_are_removed_wherever_the_reads_split_the_output() -> None:
    data = ("a \x9d0;title\x9c b \x9d52;c;cHduZWQ=\x07 c \x9b2J\x9b1;31md \x90q#0;2;0;0;0\x9c e\x9c f\x85g\n"
            "© ° \x1b]0;seven\x9c h \x9d8;;u\x1b\\link\x9d8;;\x1b\\ i\n").encode()
    whole, escapes = _fed(data, [])
    assert whole == "a  b  c d  e fg\n© °  h link i\n".encode()
    assert escapes == 10  # eight sequences, a stray ST, a NEL
    rng = random.Random(11)
    for _ in range(300):
        assert _fed(data, sorted(rng.sample(range(1, len(data)), rng.randint(1, 12))))[0] == whole
    assert _fed(data, list(range(1, len(data))))[0] == whole  # a byte at a time


def test_text_beside_an_8bit_sequence_never_ended_is_kept() -> None:
    assert _fed("a\x9d0;".encode() + b"y" * 10_000 + b"\nb\n", [])[0] == b"a0;" + b"y" * 10_000 + b"\nb\n"
    assert _fed("ok\x9b3".encode(), [])[0] == b"ok3"
    assert _fed(b"half \xc2", [])[0] == b"half \xc2"  # a byte that begins no C1 control stays as it came


async def test_a_commands_8bit_title_is_said_removed(work: Path) -> None:
    out = await call(make_env(work), "bash", command="printf 'B\\302\\2350;TITLE\\302\\234 \\302\\2332J done\\n'")
    assert out == ("[output as a terminal leaves it: 2 escape sequences removed; `| cat -v` shows every byte]\n"
                   "B  done\nexit code: 0")
