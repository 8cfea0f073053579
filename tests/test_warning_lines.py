"""A library's Python warning as one line of ours (warning_lines.warning_line). pydantic's serializer
warning about a provider's token counts (`completion_tokens` given as "lots") is said as a usage
warning; any serializer warning was, so one about another value (the settings' prices held as the
word 'none', which `config --json` once wrote out) read 'the provider reported token usage that is
not a count … costs may be off' where no provider had answered. The warnings here are pydantic's own."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable

import pytest
from pydantic import BaseModel

from compact_agent.config import Settings
from compact_agent.warning_lines import warning_line

USAGE = "the provider reported token usage that is not a count (negative or not a number); costs may be off"


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int


def said(caplog: pytest.LogCaptureFixture, make: Callable[[], object]) -> list[str]:
    """What `warning_line` logs of the warnings `make` raises."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make()
    assert caught, "no warning to say"
    with caplog.at_level(logging.WARNING, logger="compact_agent.warnings"):
        for w in caught:
            warning_line(w.message, w.category, w.filename, w.lineno)
    return [r.getMessage() for r in caplog.records if r.name == "compact_agent.warnings"]


def test_token_counts_that_are_not_counts_are_a_usage_warning(caplog: pytest.LogCaptureFixture) -> None:
    assert said(caplog, lambda: Usage.model_construct(prompt_tokens=3, completion_tokens="lots").model_dump()) \
        == [USAGE]


def test_another_value_is_said_as_itself_not_as_usage(caplog: pytest.LogCaptureFixture) -> None:
    prices_in_words = Settings().model_copy(update={"prices": "none"})
    [line] = said(caplog, lambda: prices_in_words.model_dump(mode="json"))
    assert line == ("a value was not written out as its type says: Expected `ModelPrices` - serialized value may not "
                    "be as expected [field_name='prices', input_value='none', input_type=str]"), line
    assert "Pydantic" not in line and "Unexpected" not in line and "\n" not in line


def test_odd_token_counts_pydantic_ai_could_not_read_are_a_usage_warning(caplog: pytest.LogCaptureFixture) -> None:
    from pydantic_ai.usage import RequestUsage

    odd = {"usage": {"prompt_tokens": -3, "completion_tokens": "lots", "total_tokens": 1}}
    assert said(caplog, lambda: RequestUsage.extract(odd, provider="openai", provider_url="https://api.openai.com/v1",
                                                     provider_fallback="openai", api_flavor="chat")) == [USAGE]


def test_a_warning_that_only_mentions_usage_is_said_as_itself(caplog: pytest.LogCaptureFixture) -> None:
    """A library's deprecation of `result.usage()` said 'the provider reported token usage that is not a
    count … costs may be off' where no provider had sent anything odd."""
    def deprecated() -> None:
        warnings.warn("`result.usage()` is deprecated, use `result.usage` instead", DeprecationWarning, stacklevel=1)

    assert said(caplog, deprecated) == ["`result.usage()` is deprecated, use `result.usage` instead"]
