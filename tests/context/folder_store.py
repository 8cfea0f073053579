"""An `InMemoryStore` with side files in a folder, made when asked for, so that the view layers
spill long results (L1) and log collapses (L4) to files, as with the CLI's store."""

from __future__ import annotations

from pathlib import Path

from compact_agent.context import InMemoryStore


class FolderStore(InMemoryStore):
    def __init__(self, root: Path) -> None:
        super().__init__()
        self.dir = root

    def side_dir(self, name: str) -> Path:
        (self.dir / name).mkdir(parents=True, exist_ok=True)
        return self.dir / name
