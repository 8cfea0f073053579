"""Reading only regular files, capped: the library's own reader (context/plumbing/regular_file.py),
which the terminal agent's config, instruction and session side files go through too."""

from __future__ import annotations

from .context.plumbing.regular_file import (
    OWN_FILE_CAP,
    NotRegular,
    TooLarge,
    open_regular,
    read_capped,
    read_own,
)

__all__ = ["OWN_FILE_CAP", "NotRegular", "TooLarge", "open_regular", "read_capped", "read_own"]
