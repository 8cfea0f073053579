"""A Ctrl-C that comes while the prompt is being saved (`stop_signals.held`) waits for the save to
end, as SIGTERM and SIGHUP do: its KeyboardInterrupt cut the save short, and `-p` interrupted in
that instant said 'interrupted' without 'the session is saved' of a prompt that was (or was torn)."""

from __future__ import annotations

import signal

import pytest

from compact_agent import stop_signals


def test_ctrl_c_during_a_save_comes_after_it() -> None:
    before = signal.getsignal(signal.SIGINT)
    done: list[str] = []
    with pytest.raises(KeyboardInterrupt), stop_signals.held():
        signal.raise_signal(signal.SIGINT)
        done.append("saved")  # reached: the interrupt waited
    assert done == ["saved"]
    assert signal.getsignal(signal.SIGINT) is before


def test_without_a_ctrl_c_nothing_is_raised_and_the_handler_is_put_back() -> None:
    before = signal.getsignal(signal.SIGINT)
    with stop_signals.held():
        pass
    assert signal.getsignal(signal.SIGINT) is before
