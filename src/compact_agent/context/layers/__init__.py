"""The four view layers (L1 budget → L2 snip → L3 microcompact → L4 collapse) and their order.

Each shapes only what is sent for one request, from the history and its own frozen decisions;
none knows about another, and none rewrites the persisted history (that is `compaction/`).
`order.py` says in which order they run; `frozen.py` keeps their decisions across a restart.
"""

from .order import default_layers

__all__ = ["default_layers"]
