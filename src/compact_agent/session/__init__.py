"""The terminal agent's sessions on disk: one JSONL file a session (`store.py`'s `SessionStore`, the
store the agent hands the library's `ContextManager`), the full transcript archived before every
rewrite, and what is kept beside it (the layers' event log, prompt history, the session's lock).
How to read one back, list, remove or repair them is in the module of each; docs/pipeline.md,
"Sessions and what is kept", says where they live.
"""
