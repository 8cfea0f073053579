"""SWE-agent ``.traj`` trajectories: which history its agent saw, imported as chat messages.

A trajectory is ``{history, trajectory, info}``, a retrying run's ``{attempts: [...]}`` with one such
history each. ``history`` is the model's view, OpenAI chat messages that `_openai_chat.import_chat`
imports (observations as the environment's); what is SWE-agent's own is settled here first:

* The attempt replayed is the one the run chose, else the last one finished; the others are counted.
* Entries of another agent (``agent``) were never sent to this one and are left out.
* Demonstrations (``is_demo``) are part of the prompt: kept, and a worked example laid out as
  messages (``put_demos_in_history``) becomes the first request's text, since its assistant turns
  are not calls the agent made (said in a note; the chat import lays it out).
* Anthropic ``thinking_blocks`` are sent back with tool calls, and kept there (a text-format
  action's are not sent).
* History processors (``last_n_observations`` and the like) shaped what was sent from ``history``:
  replayed whole, with a note; but images embedded in the text as base64 markdown, which its
  ``image_parsing`` processor sends as images, become the image marker.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ._common import IMAGE_PLACEHOLDER, ConversationBuilder, counted
from ._openai_chat import as_mapping, import_chat
from ._recorded import loads

#: SWE-agent history processors that only mark messages (cache control, tags), not change their text,
#: or whose change the import makes itself (images embedded as text, sent as images).
_MARKING_PROCESSORS = frozenset({"default", "cache_control", "tag_tool_call_observations", "image_parsing"})


def import_swe_agent(document: Mapping[str, Any], builder: ConversationBuilder) -> None:
    """A SWE-agent ``.traj`` (see the module docstring): one attempt's history, as its agent saw it."""
    attempts = [a for a in document.get("attempts") or [] if isinstance(a, Mapping) and isinstance(a.get("history"), list)]
    if isinstance(document.get("history"), list):
        data = document
        if len(attempts) > 1:
            builder.warnings.append(f"replayed the attempt the run chose; the other {counted(len(attempts) - 1, 'attempt')}"
                                    " in the file are not")
    else:  # a retrying run still going, or stopped: only its finished attempts
        data = attempts[-1]
        if len(attempts) > 1:
            builder.warnings.append(f"replayed the last of {counted(len(attempts), 'attempt')} (the run chose none)")
    history = [entry for entry in data["history"] if isinstance(entry, Mapping)]
    main = next((e.get("agent") for e in history if e.get("role") == "system"), None) or next(
        (e.get("agent") for e in history), None)
    ours = [e for e in history if main is None or e.get("agent") in (None, main)]
    if other := len(history) - len(ours):
        builder.warnings.append(f"left out {counted(other, 'entry', 'entries')} of another agent than {main!s}"
                                " (never sent to it)")
    builder.skipped += len(data["history"]) - len(history)
    if demos := sum(1 for e in ours if e.get("is_demo") and e.get("role") in {"assistant", "tool"}):
        builder.warnings.append(
            f"the worked example laid out as messages ({counted(demos, 'assistant or tool message')}) is replayed as"
            " the first request's text: its turns are prompt, not calls the agent made")
    # It sends thinking_blocks back only with tool calls (a text-format action has `tool_calls: None`).
    ours = [{k: v for k, v in e.items() if k != "thinking_blocks"} if e.get("tool_calls") is None else e
            for e in ours]
    processors = _processors(data.get("replay_config"))
    if "image_parsing" in processors:
        ours = _images_sent_as_images(ours, builder)
    import_chat(ours, builder, observations=True)
    if eliding := _eliding(processors, ours):
        builder.warnings.append(f"the agent's history processors ({', '.join(eliding)}) changed what it sent"
                                " from this history (old observations elided and the like): replayed whole")


def _processors(config: Any) -> dict[str, Mapping[str, Any]]:
    """The history processors of a SWE-agent run's saved config (``replay_config``), by type."""
    if isinstance(config, str):
        try:
            config = loads(config)
        except (json.JSONDecodeError, RecursionError):
            return {}
    processors = as_mapping(as_mapping(config).get("agent")).get("history_processors")
    return {str(p.get("type")): p for p in processors if isinstance(p, Mapping)} if isinstance(processors, list) else {}


def _eliding(processors: Mapping[str, Mapping[str, Any]], history: list[Mapping[str, Any]]) -> list[str]:
    """The processors that changed the text this run sent: those that rewrite messages, and
    ``last_n_observations`` once the run had more observations than it keeps, or one tagged for removal."""
    names: list[str] = []
    for kind, processor in processors.items():
        if kind == "last_n_observations":
            actions = [i for i, e in enumerate(history) if e.get("role") == "assistant" and not e.get("is_demo")]
            seen = sum(1 for e in history[:actions[-1] if actions else 0]
                       if e.get("message_type") == "observation" and not e.get("is_demo"))
            keep, polling = processor.get("n"), processor.get("polling") or 1
            removed = processor.get("always_remove_output_for_tags") or ["remove_output"]
            tagged = any(set(removed) & set(e.get("tags") or []) for e in history if e.get("message_type") == "observation")
            if tagged or (isinstance(keep, int) and isinstance(polling, int) and polling > 0
                          and (seen // polling) * polling - keep > 1):
                names.append(f"{kind} {keep}")  # the first observation (the task) is never elided by count
        elif kind not in _MARKING_PROCESSORS:
            names.append(kind)
    return names


#: An image SWE-agent embeds in text as a markdown data URL (a multimodal task's screenshots); its
#: ``image_parsing`` processor sends those of these types as images.
_EMBEDDED_IMAGE = re.compile(r"(!\[[^\]]*\]\(data:)(?:image/(?:png|jpeg|jpg|webp));base64,[^)]+(\))")


def _images_sent_as_images(history: list[Mapping[str, Any]], builder: ConversationBuilder) -> list[Mapping[str, Any]]:
    """The history with each embedded image the run sent as an image (user and tool messages) made
    the image marker, as every importer's images are: its base64 text was never the model's to read."""
    found = 0

    def swap(text: str) -> str:
        nonlocal found
        text, n = _EMBEDDED_IMAGE.subn(lambda m: f"{m.group(1)}{IMAGE_PLACEHOLDER}{m.group(2)}", text)
        found += n
        return text

    out: list[Mapping[str, Any]] = []
    for entry in history:
        content = entry.get("content")
        if entry.get("role") in {"user", "tool"} and isinstance(content, str):
            entry = {**entry, "content": swap(content)}
        elif entry.get("role") in {"user", "tool"} and isinstance(content, list):
            entry = {**entry, "content": [{**b, "text": swap(b["text"])} if isinstance(b, Mapping)
                                          and isinstance(b.get("text"), str) else b for b in content]}
        out.append(entry)
    if found:
        builder.warnings.append(f"{counted(found, 'image')} embedded as base64 text, which the run sent as images,"
                                f" replayed as {IMAGE_PLACEHOLDER}")
    return out
