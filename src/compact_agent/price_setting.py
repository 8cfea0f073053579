"""The `prices` setting: what a model's tokens cost, in USD per million tokens.

A model the registry knows (models.REGISTRY) is priced from it. One it does not know — a paid
OpenAI-compatible endpoint, or a local vLLM, Ollama or llama.cpp server — has no prices, and its
compactions then go by thresholds and counts alone (docs/pipeline.md). This setting gives them:
uncached input, cached input (a prompt-cache hit), output, and optionally a cache write (what a
provider such as Anthropic charges for writing a cache entry; left out, a write costs an uncached
input). `0,0,0` says the model is free per token: the pipeline then compacts only where it must.

Written as the flag takes it, `--prices 0.27,0.07,1.10` (or `COMPACT_AGENT_PRICES=0.27,0.07,1.10`,
`prices = "0.27,0.07,1.10"`), or in a file as a list (`prices = [0.27, 0.07, 1.10]`) or a table
(`[prices]` with `input`, `cached_input`, `output`, `cache_write`). A cached input dearer than an
uncached one is refused: a cache hit never costs more than a miss (give the same price twice for an
endpoint without a cache discount), and the pipeline's arithmetic takes it as cheaper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real
from typing import Any, Protocol

from pydantic_core import PydanticCustomError

from .setting_values import shown
from .words import quoted

KEYS = ("input", "cached_input", "output", "cache_write")
FORM = "INPUT,CACHED_INPUT,OUTPUT[,CACHE_WRITE] in USD per million tokens, e.g. 0.27,0.07,1.10"


class Priced(Protocol):
    """A registry entry's prices (models.ModelInfo), USD per million tokens."""

    @property
    def input(self) -> float: ...
    @property
    def cache_read(self) -> float: ...
    @property
    def output(self) -> float: ...
    @property
    def cache_write(self) -> float: ...


@dataclass(frozen=True)
class ModelPrices:
    """USD per million tokens; `cache_write` is the uncached input price where none is charged apart."""

    input: float
    cached_input: float
    output: float
    cache_write: float

    def __str__(self) -> str:
        write = f", ${self.cache_write:g} cache write" if self.cache_write != self.input else ""
        return f"${self.input:g} input, ${self.cached_input:g} cached, ${self.output:g} output{write} per M tokens"

    def as_list(self) -> list[float]:
        """As a session file keeps the prices it was started with (session/remembered.py)."""
        return [self.input, self.cached_input, self.output, self.cache_write]

    @classmethod
    def of(cls, info: Priced) -> ModelPrices:
        """A registry model's prices, as the setting writes them (no cache-write price: an input's)."""
        return cls(info.input, info.cache_read, info.output, info.cache_write or info.input)


def parse_prices(value: object) -> ModelPrices | None:
    """The setting's value from any of its forms; a ValueError whose text is the line the user
    reads (pydantic's custom error: no `Value error,` before it) for anything else."""
    if value is None or isinstance(value, ModelPrices):
        return value
    if isinstance(value, dict):
        unknown = [str(k) for k in value if k not in KEYS]
        if unknown:
            raise _bad(f"no price named {quoted(unknown[0])} (a table takes {', '.join(KEYS)})")
        missing = [k for k in KEYS[:3] if k not in value]
        if missing:
            raise _bad(f"the table has no {missing[0]} price (it needs input, cached_input and output)")
        parts: list[Any] = [value[k] for k in KEYS if k in value]
    elif isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
    elif isinstance(value, list | tuple):
        parts = list(value)
    elif _is_number(value):  # one price (a variable's 0.27)
        parts = [value]
    else:
        raise _bad(f"expected {FORM}, not {_shown(value)}")
    if len(parts) not in (3, 4):
        given = f"a list of {len(parts)}" if isinstance(value, list | tuple) else _shown(value)
        raise _bad(f"expected 3 or 4 prices, {FORM}; not {given}")
    numbers = [_price(KEYS[i], p) for i, p in enumerate(parts)]
    miss, hit = numbers[0], numbers[1]
    if hit > miss:
        raise _bad(f"the cached input price ({hit:g}) is above the uncached one ({miss:g}); a cache hit never "
                   "costs more (give the same price twice for an endpoint without a cache discount)")
    return ModelPrices(miss, hit, numbers[2], numbers[3] if len(numbers) == 4 else miss)


def _price(name: str, given: object) -> float:
    what = f"the {name.replace('_', ' ')} price"
    if not isinstance(given, str) and not _is_number(given):  # a list, a table, true, null
        raise _bad(f"{what} is {_shown(given)}, not a number ({FORM})")
    text: str | Real | Decimal = given.strip() if isinstance(given, str) else given  # type: ignore[assignment]
    try:
        number = float(text)
    except ValueError:  # '' or 'cheap'
        raise _bad(f"{what} {_shown(given)} is not a number ({FORM})") from None
    except OverflowError:  # a whole number of 309 digits or more, as a file may write one
        number = math.inf
    if math.isnan(number) or math.isinf(number) and _written_as_infinity(text):
        raise _bad(f"{what} {_shown(given)} is not a number ({FORM})")
    if math.isinf(number):
        raise _bad(f"{what} {_shown(given)} is too large to be a price")
    if number < 0:
        raise _bad(f"{what} must be 0 or more, not {number:g}")
    return number


def _is_number(value: object) -> bool:
    """A number a file or a caller gives (a Decimal too), not true or false."""
    return isinstance(value, Real | Decimal) and not isinstance(value, bool)


def _written_as_infinity(text: object) -> bool:
    """Whether `text` is infinity itself (`inf`, a file's float `inf`), not a number too large."""
    return not isinstance(text, int) and str(text).lstrip("+-").lower() in ("inf", "infinity")


def _shown(value: object) -> str:
    """The value as written (text in quotes, a number as it is), or its kind in words (setting_values.shown)."""
    if _is_number(value) and not isinstance(value, int | float):  # a Decimal or a Fraction: 1.5, not Decimal('1.5')
        text = str(value)
        return text if len(text) <= 60 else text[:59] + "…"
    return shown(value.strip() if isinstance(value, str) else value)


def _bad(message: str) -> PydanticCustomError:
    return PydanticCustomError("bad_value", "{message}", {"message": message})
