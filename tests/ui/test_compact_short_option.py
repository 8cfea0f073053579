"""`/compact -p`, a short flag (print mode's `-p`, meant as `--preview`), is refused as `--bogus` is:
it was taken as the summary's instructions, and the session was compacted at once, unpreviewed.
A dash alone (`- keep the tests`) or before a number (`-1`) stays words."""

from __future__ import annotations

from compact_agent.ui.compact_command import parse


def test_a_short_flag_is_an_unknown_option() -> None:
    for flag in ("-p", "-preview", "-f", "-x"):
        said = parse(f"keep the tests {flag}")
        assert isinstance(said, str) and said.startswith(f"unknown option {flag} for /compact;"), said
        assert isinstance(parse(flag), str)


def test_dashes_in_words_stay_instructions() -> None:
    assert parse("keep the tests - all of them") == ("keep the tests - all of them", None, None, False)
    assert parse("keep x-ray notes, -1 offsets --preview") == ("keep x-ray notes, -1 offsets", None, None, True)
