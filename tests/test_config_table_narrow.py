"""`/config` and `compact-agent config` in a narrow terminal: at 40 columns each row was 58 wide
(the name column 30, then the narrowest value and source columns) and the terminal wrapped it
again, the next row's name under the last one's source. Where the name and those columns do not
fit beside each other, the name has a line of its own and its value and source go under it, on
one line where they fit, else side by side, each wrapped in its part of the line."""

from __future__ import annotations

from compact_agent.settings_table import table

PRICES = "$0.28 input, $0.028 cached, $0.42 output per M tokens"
OWN = "the model's own (deepseek-chat)"
ROWS = [("model", "deepseek-chat", "flag"), ("prices", PRICES, OWN),
        ("autocompact_buffer", "13000", "default → 12,800 in the 128,000-token window"),
        ("tool_results_per_message_chars", "200000", "default"),
        ("base_url", "not set (the model's provider)", "default")]


def test_at_40_columns_each_name_has_a_line_and_its_value_and_source_go_under_it() -> None:
    lines = table(ROWS, 40)
    assert lines == [
        "model",
        "  deepseek-chat  flag",
        "prices",
        "  $0.28 input,        the model's own",
        "  $0.028 cached,      (deepseek-chat)",
        "  $0.42 output per M",
        "  tokens",
        "autocompact_buffer",  # a short value beside a long source leaves it the rest of the line
        "  13000  default → 12,800 in the",
        "         128,000-token window",
        "tool_results_per_message_chars",
        "  200000  default",
        "base_url",
        "  not set (the model's           default",
        "  provider)",
    ], lines
    assert all(len(line) <= 32 for line in table(ROWS, 32)), table(ROWS, 32)


def test_where_the_columns_fit_the_rows_stay_as_they_were() -> None:
    lines = table(ROWS, 80)  # the name column (30) beside the narrowest value and source columns: 74
    assert [line.split()[0] for line in lines if not line.startswith(" ")] == [name for name, _, _ in ROWS]
    assert lines[0] == "model                           deepseek-chat             flag", lines
