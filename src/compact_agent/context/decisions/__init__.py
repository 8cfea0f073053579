"""When and how much to change the context, in the provider's prices.

`economics.py` prices an action (cache hits, misses, the tail re-sent); `schedule.py` decides when
to compact and in what form, from what `schedule_state.py` has measured; `reuse.py` measures what
forgetting a result would cost; `fit.py` is the last resort that shrinks a request still over the
window, `thinking_out.py` what of the model's thinking a request leaves out; `view.py` names what
they read of the manager.
"""
