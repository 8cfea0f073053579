"""The test modules' asserts rewritten once, before the suite's workers start.

pytest compiles each test module with its asserts rewritten and caches the result beside it
(`__pycache__/<name>.<tag>-pytest-<version>.pyc`). On a fresh checkout (CI) the workers all start
at once, all find that cache empty, and each rewrites all 1,100 modules itself: 16 s of CPU a worker
on top of the 7.5 s a collection takes from the cache (2 cores, 4 workers: 27 s before the first test
ran against 7.5 s from a warm cache). Here the process that starts the workers rewrites the modules
missing from the cache first, without importing them (so no test module runs here), split over the
cores, and the workers then find every one cached.

It uses pytest's own rewriting (`_rewrite_test`, `_write_pyc`), which pytest does not promise to
keep: where they are gone, nothing is warmed and the workers rewrite as before. A module it fails
on is left to the workers, whose error is the one reported.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

try:
    from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc
except ImportError:  # gone from this pytest: nothing is warmed
    PYC_TAIL = ""

TESTS = Path(__file__).resolve().parent


def _pyc(module: Path, tail: str) -> Path:
    return module.parent / "__pycache__" / (module.name[:-3] + tail)


def missing(root: Path, tail: str) -> list[Path]:
    """The test modules and conftests under `root` whose rewritten form is not cached, or is older
    than the module."""
    out = []
    for module in root.rglob("*.py"):
        if "__pycache__" in module.parts or not (module.name.startswith("test_") or module.name == "conftest.py"):
            continue
        pyc = _pyc(module, tail)
        with contextlib.suppress(OSError):
            if pyc.stat().st_mtime >= module.stat().st_mtime:
                continue
        out.append(module)
    return out


def warm(config: Any, cores: int, root: Path = TESTS) -> int:
    """Rewrite what is missing from the cache under `root` in `cores` processes (this one and
    forks); how many modules were missing."""
    if sys.dont_write_bytecode or not PYC_TAIL:  # the workers write no cache either; or no rewriting to call
        return 0
    todo = sorted(missing(root, PYC_TAIL), key=lambda m: m.stat().st_size, reverse=True)
    if not todo:
        return 0
    shares = [todo[i::cores] for i in range(cores)]
    children = []
    for share in shares[1:]:
        pid = os.fork()
        if pid == 0:  # a share of its own, then out at once: no exit handlers, no pytest teardown
            code = 1
            try:
                _rewrite(share, config)
                code = 0
            finally:
                os._exit(code)
        children.append(pid)
    _rewrite(shares[0], config)
    for pid in children:
        os.waitpid(pid, 0)
    return len(todo)


class _Quiet:
    """What `_write_pyc` reports its errors to (pytest's assertion state traces them): nothing."""

    def trace(self, *args: object) -> None:
        return None


def _rewrite(modules: list[Path], config: Any) -> None:
    for module in modules:
        try:
            source_hash, code = _rewrite_test(module, config)
            (module.parent / "__pycache__").mkdir(exist_ok=True)
            _write_pyc(_Quiet(), code, source_hash, _pyc(module, PYC_TAIL))
        except Exception:  # noqa: BLE001, S112 - left to the worker, which reports it
            continue
