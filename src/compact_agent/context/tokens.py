"""Old import path for the terminal agent (`from ..context import tokens`); the module is
`plumbing/tokens.py`.

Kept until agent/ imports from the new path; nothing inside the library uses it. The old name is
the very same module object, so `tokens.X` reads exactly what `plumbing.tokens.X` does.
"""

import sys

from .plumbing import tokens

sys.modules[__name__] = tokens
