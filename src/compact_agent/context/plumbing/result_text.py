"""How many lines a tool's own result had, read back from whatever the view now shows in its place.

Layer 1 shows a long result as a preview whose note says it (`layers/previews.py` `build_preview`);
a layer that puts a placeholder in a result's place (microcompact, snip) keeps the count in its mark.
The layers and the digest that says how a step ended all read it here, so no layer imports another.
"""

from __future__ import annotations

import re

from pydantic_ai.messages import ToolReturnPart

from .markers import ours


def text_of(part: ToolReturnPart) -> str | None:
    """The text the model would read for this result, or None when it carries files (images)."""
    if isinstance(part.content, str):
        return part.content
    if part.files:
        return None
    return part.model_response_str(wrap_if_error=False)


def text_beside_files(part: ToolReturnPart) -> str | None:
    """The text of a result that carries files (images) beside it: its text items as the model
    reads them, a blank line between two. None for a result without files, or of files alone.
    Layer 1 measures it, and shows it as its preview followed by the files (`measured_text`)."""
    if isinstance(part.content, str) or not part.files:
        return None
    texts = [item for item in part.content_items(mode="str", wrap_if_error=False) if isinstance(item, str)]
    return "\n\n".join(texts) if texts else None


def measured_text(part: ToolReturnPart) -> str | None:
    """The text layer 1 measures, spills and previews: the result's (`text_of`), or the text beside
    its files (`text_beside_files`), whose preview is shown followed by the files."""
    text = text_of(part)
    return text if text is not None else text_beside_files(part)


def line_count(text: str) -> int:
    """Lines as an editor counts them: a final newline ends the last line, it does not start one."""
    return text.count("\n") + (0 if text.endswith("\n") else 1) if text else 0


PREVIEWED_BY = "budget"
"""The mark (`markers.mark`) of the layer that shows a long result as its preview (budget.LAYER)."""

#: The note a preview ends with (`layers/previews.py` `build_preview` writes it): the result's lines.
NOTED = re.compile(r"\n\n\[\w+ too large for the context \([\d,]+ characters, ([\d,]+) lines?\); showing the first "
                   r"[\d,]+ and last [\d,]+ characters\. [^\n]*\]\Z")


#: The notes read_file puts before the numbered lines of a file (agent/tools/files.py): `[a.py: lines
#: 1-70 of 282; read more with offset=71]`, `[a.py is UTF-16 text, not UTF-8; …]`.
READ_NOTES = re.compile(r"(?:\[[^\n]*\]\n)+(?=\s*\d+\t)")


def result_lines(part: ToolReturnPart) -> int | None:
    """How many lines the tool's own result had that `part` now shows, 0 when it had no output:
    a preview's note says it (`build_preview`), a layer that put a placeholder in its place keeps it
    under "lines" in its mark (microcompact, snip), else the text shown is the result. None for a
    result of files, or a preview or placeholder that does not say it. A read_file's notes before
    the file's numbered lines are not counted: a 70-line slice was said to be 71 lines."""
    marks = ours(part)
    kept = [info["lines"] for info in marks.values() if isinstance(info, dict) and "lines" in info]
    if kept:
        return kept[0] if isinstance(kept[0], int) else None
    text = text_of(part)
    if text is None:
        return None
    notes = line_count(m[0]) if part.tool_name == "read_file" and (m := READ_NOTES.match(text)) else 0
    if PREVIEWED_BY in marks:
        noted = NOTED.search(text)
        return int(noted.group(1).replace(",", "")) - notes if noted is not None else None
    return line_count(text) - notes if text.strip() else 0
