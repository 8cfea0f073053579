"""L5: compaction, which rewrites the persisted history after archiving it.

`compactor.py` runs a full, partial or reactive compaction, and `keep.py` says beforehand what one
would keep and at what size (one answer per history, which the schedule prices); `summarizer.py`
asks the model for the summary (sharing the conversation's cached prefix) with the prompt of
`summary_prompt.py`, and `summary.py` writes the message that carries it, or the record of the
steps written without a model (with the images of the user's latest message, `images.py`);
`cuts.py` cuts a history to fit and joins the pieces, `result.py` is what a compaction gives back
or raises, and `quoting.py` quotes a transcript in the library's own requests as data;
`memory.py` and `notes.py` keep session notes that can stand in for a summary (`notes_tail.py`:
what is kept after them); `restore.py` reads again the files changed since the previous
compaction; `ledger.py` carries every file touched through each compaction.
"""
