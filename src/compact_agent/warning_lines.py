"""Python warnings from libraries as lines of ours: pydantic's span lines and name classes; ours are
one line, `compact-agent: warning: ...`, with no file and no class name (cli_warnings.py routes them)."""

from __future__ import annotations

import logging
import re
from typing import Any

#: pydantic's warning that a value was not of its field's type when written out, and the field named.
_SERIALIZER = "Pydantic serializer warnings:"
_FIELD = re.compile(r"field_name='(\w+)'")
#: Each value's part of it: `PydanticSerializationUnexpectedValue(Expected `int` - … [field_name=…])`.
_UNEXPECTED = re.compile(r"^\s*\w+\((.*)\)\s*$")


def warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: Any = None, line: str | None = None) -> None:
    """A Python warning from a library as one line of ours: no file, line or class name. Not pydantic-ai's
    failure to price a reply (a model name it cannot look up): the costs shown are from the model's prices."""
    text = str(message)
    if _said(_PRICE_FAILED, text, category):
        return
    if _said(_USAGE_FAILED, text, category) or _token_counts(text):  # pydantic / pydantic-ai on odd usage fields
        text = "the provider reported token usage that is not a count (negative or not a number); costs may be off"
    elif text.startswith(_SERIALIZER):  # another value: said as it is, without pydantic's class names
        text = "a value was not written out as its type says: " + "; ".join(
            _UNEXPECTED.sub(r"\1", part).strip() for part in text.splitlines()[1:] if part.strip())
    else:
        text = re.sub(r"^\w+(Error|Warning|Exception)?: ", "", text.strip().splitlines()[0] if text.strip() else "")
    logging.getLogger("compact_agent.warnings").warning("%s", text)


#: pydantic-ai's warnings, by class or words (a version may name the class otherwise): a provider's
#: usage fields not read (`prompt_tokens = -3`); its own price of a reply not worked out.
_USAGE_FAILED = ("UsageExtractionFailedWarning", "Failed to extract usage")
_PRICE_FAILED = ("CostCalculationFailedWarning", "Failed to get cost")


def _said(known: tuple[str, str], text: str, category: type[Warning]) -> bool:
    """Whether the warning is the `known` one, by its class or its first words. Not any warning that
    says "usage": a deprecation of `result.usage()` or a notice that some responses had none is no
    count that is odd, and is said as itself."""
    return getattr(category, "__name__", "") == known[0] or text.startswith(known[1])


def _token_counts(text: str) -> bool:
    """pydantic's serializer warning about a provider's token counts (`completion_tokens = "lots"`):
    every field it names is one (`…_tokens`). A warning about another field (prices held as the word
    'none') is not about usage."""
    fields = _FIELD.findall(text)
    return text.startswith(_SERIALIZER) and bool(fields) and all(name.endswith("tokens") for name in fields)
