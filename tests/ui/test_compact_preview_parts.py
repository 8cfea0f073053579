"""`/compact --preview` said the compaction message as `the summary 1,930`: the messages the user
typed, which it carries, and the list of files it names were counted as summary. It says them apart
now, each with its share of the figure, the shares adding up to it."""

from __future__ import annotations

import re
from pathlib import Path

from compact_agent.agent.run.manual import summary_split
from compact_agent.context import CompactionResult, Event
from compact_agent.context.compaction.summary import summary_message
from compact_agent.context.plumbing import tokens
from compact_agent.ui.compact_command import kept_words
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive

SUMMARY = "1. Primary Request and Intent: " + "word " * 60


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text(f"<summary>{SUMMARY}</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 1500)


def result_of(message, parts) -> CompactionResult:
    ev = Event("compact", "full", 9_000, 2_000, trigger="manual", detail={"parts": parts})
    return CompactionResult([message], "manual", "full", 9_000, 2_000, None, SUMMARY, 4, ev)


def test_the_summary_message_is_measured_by_its_parts(tmp_path: Path) -> None:
    typed = ["fix the parser " * 20, "and a message\n\nof several lines, a blank one too\n- not a new item"]
    message = summary_message(SUMMARY, tmp_path / "archive.jsonl", typed, "full",
                              {"src/parser.py": ["edited"], "src/lexer.py": ["written"]}, ["README.md"])
    split = summary_split(result_of(message, {"summary": 400, "head_messages": 0}))
    assert split is not None and split["typed_count"] == 2
    assert split["typed"] >= tokens.text_tokens("\n".join(typed))
    assert split["text"] >= tokens.text_tokens(SUMMARY) and split["listed"] > 0
    said = kept_words({"summary": 400, "summary_split": split}, tmp_path, "full", 400)
    shown = re.fullmatch(r"the summary ([\d,]+) · 2 messages you typed ([\d,]+) · the files it lists "
                         r"([\d,]+) tokens", said)
    assert shown is not None, said
    assert sum(int(n.replace(",", "")) for n in shown.groups()) == 400


def test_a_summary_with_nothing_typed_or_listed_is_said_whole(tmp_path: Path) -> None:
    message = summary_message(SUMMARY, None, [], "full")
    split = summary_split(result_of(message, {"summary": 300, "head_messages": 0}))
    assert split is not None and split["typed"] == 0 and split["listed"] == 0
    assert kept_words({"summary": 300, "summary_split": split}, tmp_path, "full", 300) == "the summary 300 tokens"


async def test_the_preview_says_the_messages_typed_apart_from_the_summary(tmp_path: Path) -> None:
    run = await drive(tmp_path, answer, ["one\r", "two\r", "three\r", "/compact --preview\r"], answers="n\n")
    out = " ".join(run.out.split())
    shown = re.search(r"preview of /compact \(full\): [\d,]+ → ([\d,]+) tokens; .*? keeps: (.*?) tokens", out)
    assert shown is not None, out
    assert re.match(r"the summary [\d,]+ · (the message|\d+ messages) you typed [\d,]+ · ", shown[2]), shown[2]
    parts = [int(n.replace(",", "")) for n in re.findall(r" ([\d,]+)(?= ·|$)", shown[2])]
    assert sum(parts) == int(shown[1].replace(",", "")), shown[0]
