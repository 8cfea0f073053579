"""A settings file saved by an editor in another form than plain UTF-8. With UTF-8's byte-order
mark (Notepad's "UTF-8 with BOM") it said `not valid TOML (Invalid statement (at line 1, column
1))`: it is read, the mark left out. Saved as UTF-16 or UTF-32 it said `not UTF-8 text (byte 0)`:
the line says which it is, and to save it as UTF-8."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from compact_agent.settings_checks import SettingsError
from compact_agent.settings_toml import read_toml

TOML = 'model = "モデル-v1"\ncontext_window = 32000\n'


def test_a_file_with_utf8s_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(codecs.BOM_UTF8 + TOML.encode())
    assert read_toml(path) == {"model": "モデル-v1", "context_window": 32000}


@pytest.mark.parametrize(("data", "said"), [
    (codecs.BOM_UTF16_LE + TOML.encode("utf-16-le"), "it begins with UTF-16's byte-order mark"),
    (codecs.BOM_UTF16_BE + TOML.encode("utf-16-be"), "it begins with UTF-16's byte-order mark"),
    (codecs.BOM_UTF32_LE + TOML.encode("utf-32-le"), "it begins with UTF-32's byte-order mark"),
    (TOML.encode("utf-16-le"), "every other byte is zero, as in UTF-16 text without a byte-order mark"),
    (TOML.encode("utf-16-be"), "every other byte is zero, as in UTF-16 text without a byte-order mark"),
], ids=["utf-16-le", "utf-16-be", "utf-32-le", "utf-16-le-no-mark", "utf-16-be-no-mark"])
def test_a_file_saved_as_utf16_or_utf32_is_said_to_be(tmp_path: Path, data: bytes, said: str) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(data)
    with pytest.raises(SettingsError) as raised:
        read_toml(path, named_by="COMPACT_AGENT_CONFIG")
    line = str(raised.value)
    assert said in line and "save it as UTF-8" in line and "\n" not in line, line
    assert "not valid TOML" not in line
