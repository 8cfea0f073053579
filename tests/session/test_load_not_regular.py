"""A session file is opened once, without blocking, and read from that descriptor only when it is a
regular file: a load of a FIFO waited for a writer for ever, one of a link to /dev/zero read for ever;
a caller that checked where the path leads can ask that a link in its place is not followed."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.regular_file import NotRegular
from compact_agent.session.lines import readable_entries
from compact_agent.session.loading import load_session_file
from compact_agent.session.store import SessionStore

from .test_private_file_not_regular import within

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks")


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(fifo := tmp_path / "s1.jsonl")
    with within(5), pytest.raises(NotRegular) as e:
        load_session_file(fifo)
    assert e.value.strerror == "not a regular file"
    with within(5), pytest.raises(NotRegular):
        list(readable_entries(fifo))


def test_a_link_to_a_device_is_refused_at_once(tmp_path: Path) -> None:
    (link := tmp_path / "s1.jsonl").symlink_to("/dev/zero")
    with within(5), pytest.raises(NotRegular):
        load_session_file(link)


def test_a_link_is_followed_unless_asked_not_to(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "s1")
    store.append([ModelRequest(parts=[UserPromptPart("hello")])])
    (link := tmp_path / "s2.jsonl").symlink_to(store.path)
    assert len(load_session_file(link).messages) == 1
    assert len(load_session_file(store.path, follow_links=False).messages) == 1
    with pytest.raises(NotRegular) as e:
        load_session_file(link, follow_links=False)
    assert e.value.errno == errno.ELOOP


def test_a_missing_file_is_an_empty_session(tmp_path: Path) -> None:
    assert load_session_file(tmp_path / "none.jsonl", follow_links=False).messages == []
