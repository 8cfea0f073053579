"""Old import path for the terminal agent and its UI, which import it here; the module is `layers.microcompact`.

Kept until agent/ and ui/ import from the new path; nothing inside the library uses it.
"""

from .layers.microcompact import anthropic_context_management

__all__ = ["anthropic_context_management"]
