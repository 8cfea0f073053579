"""`analyze --prices INPUT,CACHED_INPUT,OUTPUT[,CACHE_WRITE]`: price the replay at the user's model.

The named price lists (`--pricing`, models.PRICING) are two models'. `--prices` takes the chat's own
form (price_setting.py: USD per million tokens, the same checks) and replaces the figures of the
named list, for every strategy alike, both in the costs and in the decisions ours makes with prices;
the named list still says which provider's prompt cache is replayed (DeepSeek's by default,
Anthropic's with `--pricing anthropic`). A cache-write price of its own is refused with a provider
that charges none: that combination contradicts itself. The figures travel to the worker processes
as a plain tuple of four numbers (`parse_given`), rebuilt into a price list there (`price_list`).
"""

from __future__ import annotations

from dataclasses import replace

from pydantic_core import PydanticCustomError

from ..models import PRICING, ModelInfo
from ..price_setting import parse_prices

Figures = tuple[float, float, float, float]  # input (miss), cached input (hit), output, cache write


def parse_given(text: str, pricing: str) -> Figures:
    """The figures `--prices` gave, checked against `--pricing`; a ValueError whose text is the one line
    the user reads."""
    try:
        prices = parse_prices(text)
    except PydanticCustomError as e:  # its message is the line
        raise ValueError(f"--prices: {e.message()}") from None
    assert prices is not None  # a string always gives prices or an error
    base = PRICING[pricing]
    if not base.cache_write and prices.cache_write != prices.input:
        raise ValueError(f"--prices: a cache-write price ({prices.cache_write:g}) with --pricing {pricing}, whose "
                         "provider charges none (a write costs an input); leave it out, or add --pricing anthropic "
                         "to replay a prompt cache that charges its writes")
    return (prices.input, prices.cached_input, prices.output, prices.cache_write)


def price_list(pricing: str, figures: Figures | None) -> ModelInfo:
    """The named price list, with the given figures instead of its own where there are any."""
    base = PRICING[pricing]
    if figures is None:
        return base
    miss, hit, output, write = figures
    # A write priced as an input is no price of its own: 0, as the registry writes DeepSeek's.
    return replace(base, input=miss, cache_read=hit, output=output, cache_write=write if base.cache_write else 0.0,
                   prices_known=True)
