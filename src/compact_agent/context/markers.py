"""Old import path for the terminal agent and its UI, which import it here; the module is `plumbing.markers`.

Kept until agent/ and ui/ import from the new path; nothing inside the library uses it.
"""

from .plumbing.markers import mark

__all__ = ["mark"]
