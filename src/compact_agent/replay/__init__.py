"""Replay real agent transcripts (Claude Code, Codex, mini-swe-agent, SWE-agent, OpenAI chat).

:func:`load_transcript` turns a transcript file into a provider-valid pydantic-ai message history with
the usage and compactions the original agent recorded, so compaction strategies can be measured on
real sessions instead of synthetic ones.
"""

from .importers import FORMATS, Transcript, TranscriptError, detect_format, load_transcript

__all__ = ["FORMATS", "Transcript", "TranscriptError", "detect_format", "load_transcript"]
