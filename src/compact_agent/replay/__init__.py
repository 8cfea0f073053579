"""The analyzer (`compact-agent analyze`): real agent transcripts replayed through our pipeline and the rivals'.

:func:`load_transcript` turns a transcript file (Claude Code, Codex, mini-swe-agent, SWE-agent, OpenAI or
Anthropic chat lists, Cline and Roo Code, Gemini CLI, our own sessions: `importers.FORMATS`) into a
provider-valid pydantic-ai message history with the usage and compactions the original agent recorded,
so compaction strategies can be measured on real sessions instead of synthetic ones. `simulate.py`
replays one through a strategy; `ours.py` is our `ContextManager` as one, `rival.py` what every rival
shares and `baselines.py` the registry (`STRATEGIES`) with the rivals short enough to live there;
`recall.py`, `retention.py` and `metrics.py` measure a run; `report.py`, `report_json.py` and `plot.py`
show it (docs/analyzer.md, "Adding a rival").
"""

from .importers import FORMATS, Transcript, TranscriptError, detect_format, load_transcript

__all__ = ["FORMATS", "Transcript", "TranscriptError", "detect_format", "load_transcript"]
