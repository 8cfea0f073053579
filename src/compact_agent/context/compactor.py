"""Old import path for the terminal agent and its UI, which import it here; the module is `compaction.result`.

Kept until agent/ and ui/ import from the new path; nothing inside the library uses it.
"""

from .compaction.result import CompactionResult

__all__ = ["CompactionResult"]
