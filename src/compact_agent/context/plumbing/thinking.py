"""How much of the model's thinking a provider counts, learned from its usage reports.

Our estimate counts the thinking in every response of the history. Providers differ in what they
count of it: Anthropic's newer Opus and Sonnet models keep all of it; its Haiku models, Opus before
4.5 and Sonnet before 4.6 keep only the turn under way's (a new user message drops the rest), as a
DeepSeek thinking model does; and a server may leave all of the `reasoning_content` sent back out of
its count. Counting what the provider does not made every size too large: an 8K session with long
reasoning compacted at a fifth of its window.

Two reports tell which (`ThinkingCounts.vote`): between their requests a turn's start moves
thinking among the earlier turns', and a step of a turn adds to its own; the provider's count grew
by the calibration's ratio times our estimate's growth, less what of that thinking it does not count.
A report near one answer's prediction, and far from the others' by more than the tokenizer's error
on the rest of the growth can explain, decides. Believing a provider leaves thinking out lowers every
size, so a request is judged to fit the window without it only once two reports in a row decided
each part left out alike (`trusted`), the second in this process; until then it is counted there,
as it was before anything was learned. Two requests of which the newer is no growth of the older (a
compaction or a fold between them) decide nothing, and a report near no answer takes trust back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: What of the model's thinking a provider may count: (the earlier turns', the turn under way's).
#: All (Anthropic's newer models), the turn under way's alone (DeepSeek, Anthropic's older models),
#: or none (a server that leaves the `reasoning_content` sent back out of its count).
THINKING_COUNTS = ((True, True), (False, True), (False, False))
#: A report decides when it is within a quarter of the thinking moved from one answer's prediction,
#: and the move is too large for the tokenizer's error to explain: characters/4 can be off by
#: `VOTE_NOISE` of a text (tokens.py's docstring), on the rest of what the request grew by and on the
#: thinking itself, and the wrong answer is three quarters of the move away. Below `VOTE_MIN` tokens,
#: no move decides.
VOTE_MIN, VOTE_NOISE = 64, 0.3
#: Decisive reports in a row, agreeing, before a size without the thinking is believed to fit.
CONFIRM = 2


@dataclass
class ThinkingCounts:
    """What the provider's reports showed it counts of the model's thinking: the earlier turns'
    (`earlier`) and the turn under way's (`current`), None until reports tell; `votes`: decisive
    reports in a row that agreed with it."""

    earlier: bool | None = None
    current: bool | None = None
    votes: int = 0  # decisive reports in a row that agreed on `earlier` (`vote`)
    current_votes: int = 0  # and on `current`

    def uncounted(self, earlier: int, current: int) -> int:
        """Of `earlier` tokens of earlier turns' thinking and `current` of the turn under way's, what the
        provider's reports showed it leaves out of its count."""
        return (earlier if self.earlier is False else 0) + (current if self.current is False else 0)

    def trusted(self) -> bool:
        """Whether what is left out has been agreed on enough to judge a request's fit without it:
        each part left out by `CONFIRM` reports in a row that decided it."""
        return ((self.earlier is not False or self.votes >= CONFIRM)
                and (self.current is not False or self.current_votes >= CONFIRM))

    def vote(self, ratio: float, grew: int, grew_reported: int, moved: int, added: int) -> bool | None:
        """Learn from two reports, between whose requests our estimate grew by `grew`, of which `moved`
        tokens of thinking went among the earlier turns' and `added` came to the turn's own, while
        the provider's count grew by `grew_reported`. A report close to one answer's prediction and a
        quarter of the gap or more from every other's decides what those answers agree on (answers
        the move does not tell apart agree with it); the newest such report holds. Returns whether
        what is left out changed (None: nothing decided). Two requests of which the newer is no
        growth of the older (it shrank, or earlier thinking left it: a compaction or a fold between
        them) decide nothing; a report near no answer takes the trust of what was decided back to
        one report."""
        if grew < 0 or moved < 0:
            return None
        rest = ratio * abs(grew - moved - added)

        def left(counts: tuple[bool, bool]) -> int:  # the growth such a provider does not count
            return (0 if counts[0] else moved) + (0 if counts[1] else added)
        off = {h: grew_reported - ratio * (grew - left(h)) for h in THINKING_COUNTS}
        best = min(THINKING_COUNTS, key=lambda h: abs(off[h]))
        agree = set()  # the answers this move does not tell apart from the best, the best among them
        for h in THINKING_COUNTS:
            gap = ratio * abs(left(h) - left(best))
            if gap < VOTE_MIN or (0.75 - VOTE_NOISE) * gap < VOTE_NOISE * rest:
                agree.add(h)
            elif abs(off[best]) > gap / 4:  # near no answer: what was decided rests on one report again
                self.votes, self.current_votes = min(self.votes, 1), min(self.current_votes, 1)
                return None
        if len(agree) == len(THINKING_COUNTS):
            return None
        was = (self.earlier, self.current)
        if len({h[0] for h in agree}) == 1:
            self.votes = self.votes + 1 if self.earlier == best[0] else 1
            self.earlier = best[0]
        if len({h[1] for h in agree}) == 1:
            self.current_votes = self.current_votes + 1 if self.current == best[1] else 1
            self.current = best[1]
        return (self.earlier is False, self.current is False) != (was[0] is False, was[1] is False)

    def to_json(self) -> dict[str, Any] | None:
        if self.earlier is None and self.current is None:
            return None
        return {"earlier": self.earlier, "current": self.current, "votes": self.votes,
                "current_votes": self.current_votes}

    @classmethod
    def from_json(cls, value: Any) -> ThinkingCounts:
        """As saved (`to_json`), to be confirmed once more by this process's reports before it is
        `trusted` (the session may have been resumed with another model that counts otherwise, and a
        host need not name its server); nothing learned for anything else (a file edited by hand)."""
        if not isinstance(value, dict):
            return cls()
        earlier, current = value.get("earlier"), value.get("current")
        votes, current_votes = value.get("votes"), value.get("current_votes", 0)
        if (not all(v is None or isinstance(v, bool) for v in (earlier, current))
                or not isinstance(votes, int) or not isinstance(current_votes, int)
                or isinstance(votes, bool) or isinstance(current_votes, bool) or min(votes, current_votes) < 0):
            return cls()
        return cls(earlier, current, min(votes, CONFIRM - 1), min(current_votes, CONFIRM - 1))
