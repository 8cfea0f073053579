"""The window and prices a model runs at where no setting gives them, and whence, for the two views
of the settings: `/config` in a session and the `config` command. Unset, the settings say `null`,
and a user reads "no window" or "free"; what runs is the registry's (the model's own) or, for a
model it does not know, an assumed window and no prices (it compacts at the threshold only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import ModelInfo
    from .settings_file import Loaded


def model_values(loaded: Loaded, info: ModelInfo, window: int) -> Loaded:
    """`loaded` with the window (`window`: the one in use) and prices of model `info` where the
    settings give none, or give prices the model is not priced at (a known model switched to has
    its own), each with its source in words."""
    from .models import REGISTRY
    from .price_setting import ModelPrices
    from .settings_file import with_changes

    known = info.name in REGISTRY
    if loaded.settings.context_window is None:
        whence = (f"the model's own ({info.name})" if known
                  else f"assumed: {info.name} is not a known model (set context_window)")
        loaded = with_changes(loaded, whence, context_window=window)
    if not info.has_prices:
        whence = f"not known: {info.name} is not a known model, so it compacts at the threshold only (set prices)"
        return with_changes(loaded, whence, prices="none")
    used = ModelPrices.of(info)
    if used == loaded.settings.prices or not known:
        return loaded
    return with_changes(loaded, f"the model's own ({info.name})", prices=used)


def for_settings(loaded: Loaded) -> Loaded:
    """`model_values` for the model the settings name, as a session would run it (no session)."""
    from .models import model_info, provider_for

    s = loaded.settings
    info = model_info(s.model, provider=provider_for(s.model, s.base_url), window=s.context_window,
                      prices=s.prices)
    return model_values(loaded, info, info.window)
