"""`analyze --help` names every strategy the analyzer has: a rival added to replay/baselines.py's
`STRATEGIES` left the hand-written help at the old ten names and no test failed."""

from __future__ import annotations

from compact_agent.cli_strategies import STRATEGY_NAMES
from compact_agent.replay.baselines import STRATEGIES

from .test_cli_analyze import cli


def test_the_help_names_every_registered_strategy() -> None:
    assert STRATEGY_NAMES == tuple(STRATEGIES), (
        "list the analyzer's strategies in STRATEGY_NAMES in src/compact_agent/cli_strategies.py, in "
        "the order of STRATEGIES in replay/baselines.py (analyze --help names them without importing it)")
    helped = " ".join(cli("--help").stdout.split())
    assert f"--strategy NAME {', '.join(STRATEGIES)} (repeatable; default all)." in helped
