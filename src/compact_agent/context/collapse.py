"""Old import path for the terminal agent and its UI, which import it here; the module is `layers.digest`.

Kept until agent/ and ui/ import from the new path; nothing inside the library uses it.
"""

from .layers.digest import DIGEST_HEADER

__all__ = ["DIGEST_HEADER"]
