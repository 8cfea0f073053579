"""`/compact --from N` or `--up-to N` out of range says which numbers it takes; with one message
there is one, said as such: `--up-to takes only 1 here`, where it said `takes 1 to 1`."""

from __future__ import annotations

from compact_agent.ui.compact_command import out_of_range


def test_one_message_takes_only_one_number():
    assert out_of_range(99, "up_to", 1) == ("--up-to 99: no message to summarise on that side; --up-to takes only 1 "
                                            "here (/history numbers the messages)")
    assert out_of_range(5, "from", 1) == ("--from 5: no message to summarise on that side; --from takes only 0 here "
                                          "(/history numbers the messages)")
    assert out_of_range(9, "from", 4) is not None and "--from takes 0 to 3 here" in str(out_of_range(9, "from", 4))
    assert out_of_range(0, "from", 1) is None and out_of_range(1, "up_to", 1) is None
