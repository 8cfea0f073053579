"""Old import path for the terminal agent and its UI, which import it here; the module is `compaction.summary`.

Kept until agent/ and ui/ import from the new path; nothing inside the library uses it.
"""

from .compaction.summary import MARK, SUMMARY_HEAD, UPDATE_HEAD, is_summary, is_synthetic_text

__all__ = ["MARK", "SUMMARY_HEAD", "UPDATE_HEAD", "is_summary", "is_synthetic_text"]
