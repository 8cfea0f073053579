"""The four view layers (L1 budget → L2 snip → L3 microcompact → L4 collapse) and their order.

Each shapes only what is sent for one request, from the history and its own frozen decisions;
none rewrites the persisted history (that is `compaction/`). No layer imports another, nor the
compaction: L1's parts are `previews.py`, `spills.py` and `rereads.py`, L4's `digest.py`, and what
two of them read alike lives in `plumbing/` (`result_text.result_lines`, the lines a result had,
which a layer that puts a placeholder in its place keeps in its mark; `file_changes.changed_files`,
which the compaction's ledger gives too). tests/test_layout.py holds it.
`order.py` says in which order they run; `frozen.py` keeps their decisions across a restart.
"""

from .order import default_layers

__all__ = ["default_layers"]
