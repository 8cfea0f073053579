"""The `prices` setting: a model's prices per million tokens from a flag, a variable or a file, in
any of its forms, refused in one line when they cannot be prices, and the model priced with them."""

from __future__ import annotations

import datetime
import os
from decimal import Decimal

import pytest

from compact_agent.config import Settings
from compact_agent.models import model_info, prices_of
from compact_agent.price_setting import ModelPrices, parse_prices
from compact_agent.settings_file import SettingsError, describe, load


@pytest.fixture
def no_env(tmp_path, monkeypatch):
    for k in list(os.environ):
        if k.startswith("COMPACT_AGENT_"):
            monkeypatch.delenv(k)
    user = tmp_path / "user.toml"
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(user))
    project = tmp_path / "project"
    project.mkdir()
    return user, project


def test_every_form_gives_the_same_prices():
    three = ModelPrices(0.27, 0.07, 1.1, 0.27)  # no cache-write price: a write costs an uncached input
    assert parse_prices("0.27,0.07,1.10") == three
    assert parse_prices(" 0.27 , 0.07 , 1.1 ") == three
    assert parse_prices([0.27, 0.07, 1.1]) == three
    assert parse_prices({"input": 0.27, "cached_input": 0.07, "output": 1.1}) == three
    assert parse_prices("3,0.3,15,3.75") == ModelPrices(3, 0.3, 15, 3.75)
    assert parse_prices("0,0,0") == ModelPrices(0, 0, 0, 0)  # free
    assert parse_prices("1,1,2") == ModelPrices(1, 1, 2, 1)  # no cache discount
    assert str(three) == "$0.27 input, $0.07 cached, $1.1 output per M tokens"
    assert str(ModelPrices(3, 0.3, 15, 3.75)) == "$3 input, $0.3 cached, $15 output, $3.75 cache write per M tokens"


@pytest.mark.parametrize(("given", "said"), [
    ("0.27,0.07", "expected 3 or 4 prices, INPUT,CACHED_INPUT,OUTPUT[,CACHE_WRITE] in USD per million tokens, "
                  "e.g. 0.27,0.07,1.10; not '0.27,0.07'"),
    (0.27, "expected 3 or 4 prices"),
    ("1,2,3,4,5", "expected 3 or 4 prices"),
    ("0.27,cheap,1.1", "the cached input price 'cheap' is not a number (INPUT,CACHED_INPUT,OUTPUT"),
    ("0.27,,1.1", "the cached input price '' is not a number"),
    ("nan,0,1", "the input price 'nan' is not a number"),
    ("1,0.1,inf", "the output price 'inf' is not a number"),
    ([1, 0.1, True], "the output price is true, not a number"),
    ("1,0.1,-2", "the output price must be 0 or more, not -2"),
    ("0.5,1,2", "the cached input price (1) is above the uncached one (0.5); a cache hit never costs more "
                "(give the same price twice for an endpoint without a cache discount)"),
    ({"input": 1, "output": 2}, "the table has no cached_input price (it needs input, cached_input and output)"),
    ({"input": 1, "cached": 0.1, "output": 2}, "no price named 'cached' (a table takes input, cached_input, "
                                                "output, cache_write)"),
    ({"input": 1, "it's\\x": 0.1, "output": 2}, "no price named 'it's\\x' (a table takes input, cached_input, "
                                                  "output, cache_write)"),
])
def test_what_cannot_be_prices_is_one_line_in_our_words(given, said):
    with pytest.raises(ValueError) as e:
        parse_prices(given)
    assert said in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(("given", "said"), [
    (True, "expected INPUT,CACHED_INPUT,OUTPUT[,CACHE_WRITE] in USD per million tokens, e.g. 0.27,0.07,1.10, not true"),
    (datetime.date(1979, 5, 27), "e.g. 0.27,0.07,1.10, not a date"),
    ([1, 2], "e.g. 0.27,0.07,1.10; not a list of 2"),
    (["a", "b"], "; not a list of 2"),
    ([1, None, 2], "the cached input price is null, not a number (INPUT,CACHED_INPUT"),
    ([1, [0.5], 2], "the cached input price is a list, not a number"),
    ({"input": 1, "cached_input": {"a": 1}, "output": 2}, "the cached input price is a table, not a number"),
    ([1, datetime.date(1979, 5, 27), 2], "the cached input price is a date, not a number"),
    (Decimal("1.5"), "; not 1.5"),
    ([1, Decimal("NaN"), 2], "the cached input price NaN is not a number"),
    ([1, 0.5, 10**400], f"the output price 1{'0' * 58}… is too large to be a price"),
    ("1,0.5," + "9" * 400, f"the output price '{'9' * 58}… is too large to be a price"),
])
def test_a_value_of_another_kind_is_said_in_a_config_files_words(given, said):
    """`prices = [1, 0.5, true]` was refused as `the output price True is not a number`, `prices =
    [1, 2]` as `not [1, 2]` (from JSON's ["a", "b"]: `not ['a', 'b']`), a date as `datetime.date(…)`,
    and a price of 400 digits as `bad setting: int too large to convert to float`."""
    with pytest.raises(ValueError) as e:
        parse_prices(given)
    line = str(e.value)
    assert said in line and "\n" not in line
    assert not any(python in line for python in ("True", "None", "datetime", "Decimal", "['", "{'", "float", "Error"))


def test_a_file_a_variable_and_the_flag_set_them_and_the_line_names_where(no_env, monkeypatch):
    user, project = no_env
    user.write_text('[prices]\ninput = 3.0\ncached_input = 0.3\noutput = 15.0\ncache_write = 3.75\n')
    loaded = load(project)
    assert loaded.settings.prices == ModelPrices(3, 0.3, 15, 3.75)
    assert ("prices", "$3 input, $0.3 cached, $15 output, $3.75 cache write per M tokens", "user file") \
        in describe(loaded)
    monkeypatch.setenv("COMPACT_AGENT_PRICES", "0.27,0.07,1.10")  # plain text, not JSON
    assert load(project).settings.prices == ModelPrices(0.27, 0.07, 1.1, 0.27)
    assert load(project).where("prices") == "env COMPACT_AGENT_PRICES"
    assert load(project, {"prices": "1,1,1"}).where("prices") == "flag"
    assert load(project, {"prices": "0,0,0"}).settings.prices == ModelPrices(0, 0, 0, 0)
    monkeypatch.setenv("COMPACT_AGENT_PRICES", "0.27,0.7,1.1")
    with pytest.raises(SettingsError, match=r"^bad value for prices \(from env COMPACT_AGENT_PRICES\): the cached "
                                            r"input price \(0\.7\) is above the uncached one \(0\.27\)"):
        load(project)
    monkeypatch.delenv("COMPACT_AGENT_PRICES")
    user.write_text('prices = "1,x,2"\n')
    with pytest.raises(SettingsError, match=rf"^bad value for prices \(from {user}\): the cached input price 'x'"):
        load(project)


def test_a_project_file_sets_them_only_for_a_trusted_project(no_env):
    user, project = no_env
    (project / ".compact-agent.toml").write_text('prices = "0,0,0"\n')
    loaded = load(project)
    assert loaded.settings.prices is None
    assert any("prices ignored: the project is not trusted" in w for w in loaded.warnings)
    user.write_text(f"trusted_projects = [{str(project)!r}]\n")
    assert load(project).settings.prices == ModelPrices(0, 0, 0, 0)


def test_a_model_given_prices_is_priced_with_them():
    local = model_info("my-local-model", provider="openai")
    assert not local.has_prices and not prices_of(local).known
    given = model_info("my-local-model", provider="openai", prices=ModelPrices(0.27, 0.07, 1.1, 0.27))
    assert given.has_prices and given.cost(1_000_000, 500_000, 1_000_000) == pytest.approx(0.135 + 0.035 + 1.1)
    priced = prices_of(given)
    assert priced.known and (priced.miss, priced.hit, priced.output, priced.write) == (0.27, 0.07, 1.1, 0.27)
    free = prices_of(model_info("my-local-model", prices=parse_prices("0,0,0")))
    assert free.known and (free.miss, free.hit, free.output) == (0, 0, 0)
    # A known model's own prices give way to those given; not given, they are its own.
    assert prices_of(model_info("deepseek-chat", prices=ModelPrices(1, 0.5, 2, 1))).hit == 0.5
    assert prices_of(model_info("deepseek-chat")).hit == 0.028
    assert ModelPrices.of(model_info("deepseek-chat")) == ModelPrices(0.28, 0.028, 0.42, 0.28)


def test_the_setting_defaults_to_none():
    assert Settings().prices is None
