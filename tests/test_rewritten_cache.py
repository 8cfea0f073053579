"""tests/rewritten_cache.py writes the cache pytest reads: each module's asserts rewritten, for the
workers to load instead of rewriting every module each."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc

from tests import rewritten_cache

MODULE = '''
def test_sum():
    total = 1 + 1
    assert total == 3
'''


def test_missing_modules_are_rewritten_as_pytest_would_and_then_found(tmp_path: Path, pytestconfig: pytest.Config,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", False)  # as `make test` runs (PYTHONDONTWRITEBYTECODE unset)
    for name in ("test_a.py", "test_b.py", "conftest.py", "helper.py"):
        (tmp_path / name).write_text(MODULE)
    assert sorted(m.name for m in rewritten_cache.missing(tmp_path, PYC_TAIL)) == ["conftest.py", "test_a.py",
                                                                                  "test_b.py"]
    assert rewritten_cache.warm(pytestconfig, 2, tmp_path) == 3  # one share here, one in a fork
    assert rewritten_cache.missing(tmp_path, PYC_TAIL) == []
    assert not (tmp_path / "__pycache__" / f"helper{PYC_TAIL}").exists()  # not a test module: not rewritten
    code = _read_pyc(tmp_path / "test_b.py", tmp_path / "__pycache__" / f"test_b{PYC_TAIL}")
    assert code is not None  # valid for this source, as pytest checks it
    namespace: dict[str, object] = {}
    exec(code, namespace)
    with pytest.raises(AssertionError) as failed:
        namespace["test_sum"]()  # type: ignore[operator]
    assert "assert 2 == 3" in str(failed.value)  # the assert rewritten: its values are said
    assert rewritten_cache.warm(pytestconfig, 2, tmp_path) == 0  # nothing missing: nothing done


def test_where_bytecode_is_not_written_nothing_is(tmp_path: Path, pytestconfig: pytest.Config,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", True)  # the workers write no cache either
    (tmp_path / "test_a.py").write_text(MODULE)
    assert rewritten_cache.warm(pytestconfig, 2, tmp_path) == 0 and not (tmp_path / "__pycache__").exists()
