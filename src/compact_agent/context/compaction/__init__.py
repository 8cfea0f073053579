"""L5: compaction, which rewrites the persisted history after archiving it.

`compactor.py` runs a full, partial or reactive compaction, and `keep.py` says beforehand what one
would keep and at what size (one answer per history, which the schedule prices); `summary.py` and
`summarizer.py` ask the model for the summary (sharing the conversation's cached prefix);
`memory.py` and `notes.py` keep session notes that can stand in for a summary; `restore.py` brings
back recently read files; `ledger.py` carries every file touched through each compaction.
"""
