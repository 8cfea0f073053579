"""What every layer and the compaction stand on: token counts, conversation structure (rounds),
the settings, events, markers on messages, the history stores, secret redaction, the named crash
points of durable writes, and what differs between pydantic-ai versions.
"""
