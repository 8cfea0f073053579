"""Old import path for the terminal agent and its UI, which import it here; the module is `decisions.fit`.

Kept until agent/ and ui/ import from the new path; nothing inside the library uses it.
"""

from .decisions.fit import CARRIED

__all__ = ["CARRIED"]
