"""What every layer and the compaction stand on: token counts, conversation structure (rounds),
the settings, events, markers on messages, the history stores, secret redaction, the named crash
points of durable writes, and what differs between pydantic-ai versions (compat.py); also whether
the prompt cache has expired (cache.py), what a provider's "prompt too long" says (overflow.py),
what a request that cannot fit is refused with (refusal.py), a compaction's trace span
(tracing.py), the look-alikes of the program's own words (lookalikes.py), a memo by object
identity (identity_memo.py) and reading a file kept beside a conversation (regular_file.py).
"""
