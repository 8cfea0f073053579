"""When and how much to change the context, in the provider's prices.

`economics.py` prices an action (cache hits, misses, the tail re-sent); `schedule.py` decides when
to compact; `reuse.py` measures what forgetting a result would cost; `fit.py` is the last resort
that shrinks a request still over the window.
"""
