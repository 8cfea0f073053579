"""Old import path for the terminal agent and its UI, which import it here; the module is `plumbing.events`.

Kept until agent/ and ui/ import from the new path; nothing inside the library uses it.
"""

from .plumbing.events import Event

__all__ = ["Event"]
