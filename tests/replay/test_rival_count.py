"""The README and docs/analyzer.md say how many rivals the analyzer replays beside ours, and
analyzer.md's "The rivals" describes each: both held to `baselines.STRATEGIES`, so a rival added
there (or taken out) fails here until the words follow. The trial that found it: "nine rival
strategies", and eight of them described (`none` had no line)."""

from __future__ import annotations

import re
from pathlib import Path

from compact_agent.replay.baselines import STRATEGIES

ROOT = Path(__file__).resolve().parents[2]
WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen")
RIVALS = [name for name in STRATEGIES if name != "ours"]


def text(name: str) -> str:
    return " ".join((ROOT / name).read_text(encoding="utf-8").split())  # a count may wrap onto the next line


def rivals_described(page: str) -> list[str]:
    """The names the bullets of analyzer.md's "The rivals" section begin with (`- **name**`)."""
    section = page.split("### The rivals", 1)[1].split("\n#", 1)[0]
    return re.findall(r"^- \*\*([\w-]+)\*\*", section, re.M)


def test_the_readme_and_the_analyzer_page_count_the_rivals() -> None:
    want = WORDS[len(RIVALS)] if len(RIVALS) < len(WORDS) else str(len(RIVALS))
    said = {
        "README.md": re.findall(r"through our pipeline and (\w+) other strategies", text("README.md"))
        + re.findall(r"\bThe (\w+) are the compaction of\b", text("README.md")),
        "docs/analyzer.md": re.findall(r"through our pipeline and (\w+) rival strategies", text("docs/analyzer.md")),
    }
    assert all(said.values()), f"a page no longer says how many rivals there are in words this test reads: {said}"
    wrong = {page: counts for page, counts in said.items() if any(c != want for c in counts)}
    assert not wrong, (f"{wrong} (README.md's first paragraphs, the top of docs/analyzer.md): the analyzer replays "
                       f"{want} rivals beside ours, baselines.STRATEGIES less ours ({', '.join(RIVALS)})")


def test_the_analyzer_page_describes_every_rival() -> None:
    described = rivals_described((ROOT / "docs" / "analyzer.md").read_text(encoding="utf-8"))
    assert described == RIVALS, (
        f'docs/analyzer.md\'s "The rivals" describes {described}: a line (`- **name** ...`) for each rival '
        f"of baselines.STRATEGIES, in its order: {RIVALS}")


def test_the_description_is_read_bullet_by_bullet() -> None:
    page = ("### The rivals\n\nThe rivals are:\n\n- **none** never compacts;\n- **seed000** (the seed) checks\n"
            "  **wrapped** text;\n- **anthropic-clear** clears.\n\n### Sizes\n\n- **other** is not a rival\n")
    assert rivals_described(page) == ["none", "seed000", "anthropic-clear"]
