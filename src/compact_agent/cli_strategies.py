"""`analyze --strategy`'s help names every strategy the analyzer has (replay/baselines.py
`STRATEGIES`) without importing the analyzer, which the command line imports only to run it:
`STRATEGY_NAMES` lists them, and tests/replay/test_strategy_help.py fails, saying where, when a
strategy is registered there and not here. The help was a hand-written copy that no test read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer._click import Context, HelpFormatter  # the command line library typer carries
from typer.core import TyperOption

from .cli_help import ReadableCommand

STRATEGY_NAMES: tuple[str, ...] = ("ours", "none", "seed000", "seed000-submit", "codex", "masking", "opencode",
                                   "gemini", "cline", "anthropic-clear")
"""The analyzer's strategies, in the order of replay/baselines.py's `STRATEGIES`."""

EXIT_STATUSES = ("Exit status: 0 the figures were printed; 1 an error of the analyzer on some file (the other "
                 "files' figures printed), a --model that cannot be used, or output or a chart that cannot be "
                 "written; 2 a usage error: a bad option or value, a path that does not exist, or no transcripts "
                 "found; 130 interrupted (Ctrl-C); 141 the output's reader closed it early (| head).")
"""`analyze --help`'s epilog: every exit status the command ends with (report.py, cli.py, pipes.py)."""


class AnalyzeCommand(ReadableCommand):
    """`analyze`: a ReadableCommand whose `--strategy` help begins with the strategies' names."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.epilog = EXIT_STATUSES
        for param in self.params:
            if param.name == "strategy" and isinstance(param, TyperOption):
                param.help = f"{', '.join(STRATEGY_NAMES)} {param.help or ''}".rstrip()

    def format_epilog(self, ctx: Context, formatter: HelpFormatter) -> None:
        """The exit statuses, after where the user's own sessions are (the folder, found when the
        help is asked for: COMPACT_AGENT_HOME or the platform's; and this directory's, `--cwd`'s)."""
        from .session.sessions_folder import where_line

        given = (ctx.find_root().obj or {}).get("cwd")
        try:
            cwd: Path | None = (Path(given) if given else Path.cwd()).resolve()
        except OSError:  # the current directory deleted under the shell: the folder of every project's alone
            cwd = None
        self.epilog = f"\b\n{where_line(cwd)}\n\n{EXIT_STATUSES}"  # \b: lines kept, a path unbroken
        super().format_epilog(ctx, formatter)
