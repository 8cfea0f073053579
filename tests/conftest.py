"""Fixtures shared by the suites: one pre-imported zygote per test process, from which the
reliability harness, the e2e CLI runs and the analyzer's CLI tests fork real compact-agent
processes (see tests/reliability/harness.py, tests/forked_cli.py) instead of paying the
interpreter's start-up each time.

The harness is imported only when a test asks for the zygote: the library's own tests also run
where only pydantic-ai is installed (`make compat`), without the CLI's dependencies."""

from __future__ import annotations

import gc
import importlib.util
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.reliability.harness import Zygote

# The suites talk to fake servers on 127.0.0.1, and the agent's requests go through the proxies the
# environment names as the providers' clients' do (deadline.py): a machine's own proxy settings
# would send them to its proxy, and its NO_PROXY would take the proxy tests' requests round theirs.
# Every test starts with none; the tests of proxies set their own (tests/e2e/test_proxy_errors.py).
for _name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
    os.environ.pop(_name, None)
    os.environ.pop(_name.lower(), None)

# Every provider client a test builds, in its process or in a CLI run it starts, loads the machine's
# trust store (20 ms for a 220 KB bundle, a tenth of a short CLI run's CPU), and no test speaks TLS:
# the fake servers are plain HTTP on 127.0.0.1. The tests trust one certificate of their own, whose
# key was thrown away (a request that reached out for a real TLS host would fail to verify).
os.environ["SSL_CERT_FILE"] = str(Path(__file__).resolve().parent / "fakes" / "trusts_nothing.pem")
os.environ.pop("SSL_CERT_DIR", None)

# The agents the tests start inherit this process's signal dispositions, and the agent leaves a
# SIGHUP it was started ignoring ignored (a run under nohup stays up when its terminal goes): a suite
# run under nohup, or from a shell that ignores SIGHUP, made every test that sends one wait 30 s in
# vain and fail. The tests start from the default; the ones about an ignored SIGHUP set it themselves.
if hasattr(signal, "SIGHUP"):
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
# Started in the background by a shell without job control (`make test &` in a script), the suite
# inherits SIGINT ignored, and so did every agent it started: each test of Ctrl-C waited 30 s in vain
# (236 of them failed so). Python's own handler, as an interactive start has it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _sigint_as_found() -> Iterator[None]:
    """A test leaves SIGINT's handler as it found it. One left in place by a REPL's question (a
    handler that did nothing) made a later test of Ctrl-C in the same process fail at random: its
    `asyncio.run` installs its own handler only over Python's default one."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"SIGINT's handler was left changed ({after!r}, was {before!r})", pytrace=False)


_KEYS = "compact_agent.context.plumbing.secrets"


@pytest.fixture(autouse=True)
def _secrets_as_found() -> Iterator[None]:
    """The keys a test registers for redaction (an `AgentSession` built in the test's process
    registers its key) are forgotten after it. The registry is the process's: left there, every
    later test in the worker redacted each file it wrote against hundreds of keys' patterns (a
    test spilling sixty 65K results took 16-31 s of CPU in the suite, 0.3 s alone)."""
    module = sys.modules.get(_KEYS)
    kept = None if module is None else (set(module.registered_keys), set(module.key_forms),
                                        list(module._spread), set(module._bodies), module._pieces)
    yield
    module = sys.modules.get(_KEYS)
    if module is None:
        return
    keys, forms, spread, bodies, pieces = kept or (set(), set(), [], set(), None)
    # In place: compact_agent.secrets holds the same set objects under its own names.
    for now, was in ((module.registered_keys, keys), (module.key_forms, forms), (module._bodies, bodies)):
        now.clear()
        now.update(was)
    module._spread[:] = spread
    module._pieces = pieces


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    from tests.forked_cli import shared_zygote

    yield shared_zygote()  # closed at the session's end, below: plain helpers share it too


@pytest.fixture
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's config file (`tmp_path/config.toml`, not written), with no COMPACT_AGENT_*
    variable of the machine's own set: what a settings test writes is all that is read."""
    for k in list(os.environ):
        if k.startswith("COMPACT_AGENT_"):
            monkeypatch.delenv(k)
    path = tmp_path / "config.toml"
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(path))
    return path


SRC = Path(__file__).resolve().parents[1] / "src"


def pytest_configure(config: pytest.Config) -> None:
    """The suite tests this checkout's package, as its CLI runs do (they start on `SRC`): a venv's
    editable install may be another checkout's, which pyproject's `pythonpath` puts behind `SRC`.
    Anything else that would come first (a copy imported before pytest set the path) stops it."""
    module = sys.modules.get("compact_agent")
    origin = getattr(module, "__file__", None) if module else None
    if origin is None:
        spec = importlib.util.find_spec("compact_agent")
        origin = spec.origin if spec else None
    if origin is None or not Path(origin).resolve().is_relative_to(SRC):
        raise pytest.UsageError(f"compact_agent is imported from {origin}, not from this checkout's {SRC}: "
                                f"run pytest from this checkout (its pyproject.toml puts src first)")
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):  # xdist starts workers
        from tests import forked_cli, rewritten_cache

        forked_cli.serve_workers()  # their zygotes are forked from one that imports all once (it does so meanwhile)
        rewritten_cache.warm(config, os.cpu_count() or 1)  # before they each rewrite every test module


def pytest_sessionfinish(session: pytest.Session) -> None:
    forked = sys.modules.get("tests.forked_cli")  # imported only if some test used the zygote
    if forked is not None:
        forked.close_shared_zygote()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection left alive (every test module, item and the package) lives as long as the
    worker: out of the collector's sight, each later full collection does not walk it again."""
    gc.collect()
    gc.freeze()
