"""L5: compaction, which rewrites the persisted history after archiving it.

`compactor.py` runs a full, partial or reactive compaction, and `keep.py` says beforehand what one
would keep and at what size (one answer per history, which the schedule prices); `summarizer.py`
asks the model for the summary (sharing the conversation's cached prefix) with the prompt of
`summary_prompt.py`, and `summary.py` writes the message that carries it (with the images of the
user's latest message, `images.py`);
`memory.py` and `notes.py` keep session notes that can stand in for a summary; `restore.py` brings
back recently read files; `ledger.py` carries every file touched through each compaction.
"""
