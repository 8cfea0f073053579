"""How big a request is, as the manager judges it, and what a view layer is told about it.

One figure is read in many places: before and after each layer (shaping.py), by the schedule, by
the last resort (fit.py), for the summary's `max_tokens`, by `/context`. Each reads it here, from
the estimate (the token counter's, memoised per message, else characters/4) calibrated by the
provider's reported usage, so they all agree on the size of one request. `Measuring` is a part of
`ManagerState` (state.py), apart from the state it reads (its window, calibration, schedule);
`_Measured` says what it uses of the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from pydantic_ai.messages import ModelMessage, ModelRequest, SystemPromptPart
from pydantic_ai.models import Model
from pydantic_ai.profiles import DEFAULT_PROMPTED_OUTPUT_TEMPLATE

from .arguments import counted
from .compaction.notes import NotesNotSent, past_input_limit
from .compaction.result import SummaryNotSent
from .decisions.economics import Prices
from .decisions.schedule import Schedule
from .decisions.view import ManagerView
from .plumbing import tokens
from .plumbing.events import Budget, Event
from .plumbing.identity_memo import IdentityMemo
from .plumbing.settings import estimate_margin
from .wiring import TokenCounter


class _Measured(ManagerView, Protocol):
    """What of the manager (`ManagerState`) the measurements read, besides the schedule's view."""

    @property
    def token_counter(self) -> TokenCounter | None: ...
    max_output: int
    output_caps: dict[str, int]
    @property
    def run_model(self) -> Model | None: ...
    def emit(self, event: Event) -> None: ...
    def adapt_output_reserve(self, output_tokens: int) -> None: ...
    @property
    def clock(self) -> Callable[[], datetime]: ...
    @property
    def cache_ttl_s(self) -> float: ...
    @property
    def provider(self) -> str: ...
    @property
    def prices(self) -> Prices: ...
    @property
    def schedule(self) -> Schedule: ...
    @property
    def _counted(self) -> IdentityMemo[int]: ...

    def estimate(self, messages: Sequence[ModelMessage]) -> int: ...
    def left_out(self, messages: Sequence[ModelMessage]) -> int: ...
    def thinking_in(self, messages: Sequence[ModelMessage]) -> tuple[int, int]: ...
    def _counter_total(self, messages: Sequence[ModelMessage]) -> int: ...
    def measure(self, messages: Sequence[ModelMessage]) -> int: ...
    def fit_size(self, messages: Sequence[ModelMessage], own: bool = True) -> int: ...
    def own_request_size(self, messages: Sequence[ModelMessage], own: bool = True) -> int: ...
    def unsent_output(self) -> int: ...
    def unreported_framing(self) -> int: ...
    def tool_framing(self) -> int: ...
    def framing_since(self) -> int: ...
    _overhead_text: int
    _framing_of: tuple[Any, Any, int, int, int]
    def _tool_defs(self) -> tuple[int, int, int]: ...
    @property
    def overhead_estimate(self) -> int: ...
    def _forget(self, tokens_now: int) -> Callable[[int, str], float] | None: ...
    def not_fitting(self, messages: Sequence[ModelMessage], kind: str, window: int | None = None,
                    own: bool | None = None) -> str | None: ...
    def to_run_model(self, own: bool | None) -> bool: ...
    def sent_whole(self, messages: Sequence[ModelMessage], kind: str) -> str: ...
    memory: Any
    last_params: Any


class Measuring:
    """The size of a request and the budget a view layer shapes it within (module docstring)."""

    calibration: tokens.Calibration
    _overhead_text: int  # our estimate of the latest request's instructions, tool names, descriptions and schemas
    _framing_of: tuple[Any, Any, int, int, int] = (None, None, 0, 0, 0)  # `_tool_defs`: of which parameters and tools

    @property
    def overhead_estimate(self: _Measured) -> int:
        """Our estimate of the instructions and tool definitions of the latest request: their text (less that of the
        tools it does not send, `_tool_defs`), the definition of its output (output tools, a schema: `output_defs`),
        and the framing of the tool definitions beyond that of the tools the calibration learned with
        (`framing_since`). What a report is learned against includes it (pipeline.py), as sizes do."""
        _, withheld, output = self._tool_defs()
        return max(0, self._overhead_text - withheld) + output + self.framing_since()

    @property
    def overhead(self: _Measured) -> int:
        """The instructions and tool definitions every request carries, in estimate units: our
        estimate of them and what the provider's reports show it counts beyond it
        (`Calibration.unseen`), so that `calibration.tokens(estimate + overhead)` is the size of a
        whole request and `calibration.tokens(overhead)` its fixed part, as the provider counts them."""
        return self.overhead_estimate + self.calibration.unseen()

    @overhead.setter
    def overhead(self, estimated: int) -> None:
        self._overhead_text = estimated

    def budget(self: _Measured, tokens_now: int) -> Budget:
        return Budget(window=self.limits.window, threshold=self.limits.threshold, tokens=tokens_now,
                      now=self.clock(), collapse_commit=self.limits.collapse_commit,
                      collapse_blocking=self.limits.collapse_blocking, cache_ttl_s=self.cache_ttl_s,
                      provider=self.provider, overhead=self.calibration.tokens(self.overhead),
                      prices=self.prices if self.schedule.priced_by(self) else None,
                      growth=self.schedule.growth.rate, compact_at=self.schedule.next_compaction_at(self, view=True),
                      ratio=self.calibration.ratio, credit=self.schedule.credit, forget=self._forget(tokens_now),
                      hot=self.schedule.reuse.hot if self.schedule.reuse is not None else None,
                      estimate=self.estimate, horizon=float(self.requests))

    def _forget(self: _Measured, tokens_now: int) -> Callable[[int, str], float] | None:
        """The view layers' price of forgetting, for a request of `tokens_now` (reuse.py; depths estimated)."""
        reuse, prices = self.schedule.reuse, self.prices
        if reuse is None:
            return None
        wait = reuse.wait_usd(self.settings.stall_wait_usd)

        def forget(depth_est: int, kind: str) -> float:
            return reuse.forget_cost(prices, depth_est, tokens_now, kind, wait_usd=wait)
        return forget

    def estimate(self: _Measured, messages: Sequence[ModelMessage]) -> int:
        """Uncalibrated size of `messages`: the token counter's, else characters/4.

        The counter is asked about each message once (`[message]`), memoised by identity: a request
        is measured several times (before and after each layer, for the schedule) and the history
        is the same objects request after request, so a real tokenizer runs on what is new only.
        Where the provider's reports showed that it leaves the thinking of earlier turns, or of the
        turn under way, out of its count (plumbing/thinking.py), the estimate does too (`left_out`).
        """
        total = tokens.estimate(messages) if self.token_counter is None else self._counter_total(messages)
        return total - min(total, self.left_out(messages))

    def _counter_total(self: _Measured, messages: Sequence[ModelMessage]) -> int:
        """The token counter's figure for `messages`, each message asked once (memoised by identity)."""
        assert self.token_counter is not None
        total, memo, count = 0, self._counted, self.token_counter
        for m in messages:
            n = memo.get(m)
            total += n if n is not None else memo.put(m, counted(count([m]), m))
        return total

    def left_out(self: _Measured, messages: Sequence[ModelMessage]) -> int:
        """The estimated tokens of `messages` that the provider does not count: the thinking of
        turns before the newest, and that of the newest, where its reports showed it leaves that
        out, else none. A summary request's instruction is a turn of its own, so all of its thinking
        is earlier."""
        thinking = self.calibration.thinking
        if self.token_counter is None or (thinking.earlier is not False and thinking.current is not False):
            return self.calibration.left_out(messages)
        every, earlier = self.thinking_in(messages)
        return thinking.uncounted(earlier, every - earlier)

    def thinking_in(self: _Measured, messages: Sequence[ModelMessage]) -> tuple[int, int]:
        """The model's thinking in `messages`, and of it the earlier turns', in the estimate's units:
        characters/4, or the token counter's share of it (its count of the messages against
        characters/4 of them: the thinking is not counted apart, which would ask it twice as much)."""
        every, earlier = tokens.thinking_tokens(messages), tokens.earlier_thinking_tokens(messages)
        if self.token_counter is None or not every:
            return every, earlier
        scale = self._counter_total(messages) / max(1, tokens.estimate(messages))
        return round(every * scale), round(earlier * scale)

    def measure(self: _Measured, messages: Sequence[ModelMessage]) -> int:
        return self.calibration.tokens(self.estimate(messages) + self.overhead)

    def fit_size(self: _Measured, messages: Sequence[ModelMessage], own: bool = True) -> int:
        """The size a request of `messages` is judged to fit the window by: its measure, and never
        below the raw estimate until the provider's reports agree that it counts less
        (`Calibration.fits_tokens`), nor without the thinking the provider's reports showed it does not
        count until two reports in a row decided that (`ThinkingCounts.trusted`: a size too small sends a
        request over the window). The last resort shrinks by it, and a request is refused by it. `own`:
        sent to the run's model; another (a summary model of its own) may count the thinking the run's
        provider leaves out, so it is counted for it."""
        estimated = self.estimate(messages) + self.overhead
        if not own or not self.calibration.thinking.trusted():
            estimated += self.left_out(messages)
        return self.calibration.fits_tokens(estimated)  # never below `measure`

    def side_window(self: _Measured, model: object) -> int | None:
        """The window of `model` when it is a side model of its own (a `summary_model` other than the
        run's) whose window pydantic-ai knows (its profile's `context_window`) and is smaller than
        the run's: what its requests must fit. None where the run's window holds for it."""
        if model is None or model is self.run_model:
            return None
        known = getattr(model, "context_window", None)
        return known if type(known) is int and 0 < known < self.limits.window else None

    def summary_output_cap(self: _Measured, messages: Sequence[ModelMessage], window: int | None = None,
                           own: bool | None = None) -> int:
        """The `max_tokens` of a summary request of `messages` (the instruction included): what the window leaves after
        its input, measured as a request is judged to fit (`fit_size`, the instructions and tools counted) with the
        estimate's margin kept free, at most what the model writes (`max_output`). Not the agent's own `max_tokens`,
        sized for its answers: 200 of them cut every summary off. The input was cut to leave the output reserve and
        that margin (`Compactor.summary_room`), so this is the room planned for the summary at least. `window`: a
        summary model's own, smaller one (`side_window`); `own`: the run's model writes it (`fit_size`: another may
        count thinking the run's provider does not; `to_run_model`)."""
        window = window or self.limits.window
        left = window - estimate_margin(window) - self.own_request_size(messages, self.to_run_model(own))
        return max(1, min(self.max_output, left))

    def own_request_size(self: _Measured, messages: Sequence[ModelMessage], own: bool = True) -> int:
        """The size a request of the library's own (a summary, the notes) of `messages` is judged by:
        `fit_size` less the output schema it does not send (`unsent_output`), and before the provider
        has reported any request, the framing its tool definitions are sent in (`unreported_framing`).
        Such a request asks for all the window leaves but the estimate's 2% margin, which the framing of
        25 tools alone exceeded: the first request of a run already over the threshold (an MCP server's
        instructions filling most of a 16K window) had its summary request refused as over the window."""
        return self.fit_size(messages, own) + self.calibration.tokens(self.unreported_framing() - self.unsent_output())

    def unsent_output(self: _Measured) -> int:
        """What of `overhead` a request of the library's own leaves out: a `NativeOutput`'s or `PromptedOutput`'s
        schema (`output_defs`; text_only.unable_to_act sends none). Counted, its summary had that much less room."""
        return self._tool_defs()[2] if getattr(self.last_params, "output_mode", None) in ("native", "prompted") else 0

    def unreported_framing(self: _Measured) -> int:
        """Estimated tokens of the JSON each tool definition of the latest request is wrapped in as the
        chat API sends it (`{"type": "function", "function": {"name": ...}}`), which `overhead`
        leaves out (it counts names, descriptions and schemas), while no report has shown what the
        provider counts beyond the estimate (the calibration learns that fixed part from reports:
        `Calibration.unseen`). 0 once one has (`framing_since` counts the tools added since)."""
        return 0 if self.calibration.samples else self.tool_framing()

    def tool_framing(self: _Measured) -> int:
        """Estimated tokens of the JSON the latest request's tool definitions are wrapped in (as
        `unreported_framing` says), about 25 a tool as OpenAI's chat API sends them (`strict` included:
        it sends it for most tools), of the tools it sends (`_tool_defs`)."""
        return self._tool_defs()[0]

    def _tool_defs(self: _Measured) -> tuple[int, int, int]:
        """(`tool_framing`, the estimate of the names, descriptions and schemas of the tools the latest
        request does not send, and that of its output's definition, `output_defs`), reckoned once per
        request's parameters. Not sent: a tool held back until a tool search or a capability's load
        reveals it (`defer_loading`, not yet among the names the history revealed): pydantic-ai lists
        it with the run's tools, the wire does not carry it. Counted, 30 of them made a request of 280
        tokens look like 4,300."""
        params = self.last_params
        listed = getattr(params, "function_tools", None) or []
        held, tools, framing, withheld, output = self._framing_of
        if held is params and tools is listed:
            return framing, withheld, output
        framing = withheld = 0
        revealed = getattr(params, "revealed_tool_names", None) or set()
        for t in listed:
            name, about = str(getattr(t, "name", "")), str(getattr(t, "description", "") or "")
            schema = getattr(t, "parameters_json_schema", None) or {}
            text = tokens.text_tokens(name + about + json.dumps(schema))
            if getattr(t, "defer_loading", False) is True and name not in revealed:
                withheld += text
                continue
            sent = {"type": "function", "function": {"name": name, "description": about, "parameters": schema,
                                                     "strict": True}}  # with the list's ", " after it
            framing += max(0, tokens.text_tokens(json.dumps(sent) + ", ") - text)
        try:
            profile = getattr(self.run_model, "profile", None)
        except NotImplementedError:  # a FallbackModel has none of its own
            profile = None
        output = output_defs(params, profile)
        self._framing_of = (params, listed, framing, withheld, output)
        return framing, withheld, output

    def framing_since(self: _Measured) -> int:
        """The `tool_framing` of the latest request less that of the tools the calibration's reports were
        learned with (those of the first request it saw a report of, or, for a report taken back with a
        session, of the first request after it; below 0 with fewer tools). The fixed part it learned
        (`Calibration.fixed`) holds the framing of those tools only: tools that join a run part-way (a
        toolset prepared per step, tools found by a tool search, an MCP server coming up) went uncounted,
        30 of them some 750 tokens, until requests were sent over the window. Counted in `overhead_estimate`,
        so in the estimate each report is learned against too: reports with other tools agree with those
        before, and no constant stands in for them."""
        if self.last_params is None:  # no request seen yet (a report taken back with the session: of its tools)
            return 0
        calibration, now = self.calibration, self.tool_framing()
        if calibration.tools_framing is None or calibration.last_report() is None:
            calibration.tools_framing = now  # no report yet: the reports will be of these tools
        return now - calibration.tools_framing

    def learn_output_limit(self: _Measured, model: Model, most: int) -> None:
        """A provider refused a request of the library's own (a summary, the notes) for asking more
        than `model` writes, and said what it writes: `most`. For the run's model that becomes
        `max_output`, so no later summary or notes request asks for more, and the output reserve
        keeps no more room for its answers than that (`adapt_output_reserve`: a reserve larger than
        anything the model writes compacts earlier for nothing); another summary model's is kept by
        its name (`output_caps`, read by `default_summarizer`). Every cap learned is kept there, and
        saved with the layers' state: a manager that loads it asks a model for no more from its first
        run (pipeline.py). An `output` / `learned` event says so, once per cap learned."""
        name = f"{model.system}:{model.model_name}"
        if model is self.run_model:
            given = self.max_output
            if most >= given:
                return
            self.max_output = most
            self.adapt_output_reserve(0)
        else:
            given = self.output_caps.get(name, self.max_output)
            if most >= given:
                return
        self.output_caps[name] = most  # saved with the layers' state: a restart asks for no more either
        self.emit(Event("output", "learned", detail={"max_output": most, "given": given, "model": name}))

    def check_summary_fits(self: _Measured, messages: Sequence[ModelMessage], window: int | None = None,
                           own: bool | None = None) -> None:
        """Raise `SummaryNotSent` when a summary request of `messages` leaves no room for the
        summary (`summary_output_cap` would be 1 only because nothing is left): sent, the provider
        refuses it as too long. `window`: a summary model's own (`side_window`); `own`: as there."""
        if (said := self.not_fitting(messages, "summary", window, own)) is not None:
            raise SummaryNotSent(said)

    def check_notes_fits(self: _Measured, messages: Sequence[ModelMessage]) -> None:
        """Raise `NotesNotSent` when a session-notes request of `messages` (the view just sent and the notes'
        instruction, with the previous notes) leaves no room for the notes, or is past the run's per-request input
        limit: the notes are then not updated this time, reported as a failed extraction is (memory.py)."""
        if (said := self.not_fitting(messages, "notes")) is not None:
            raise NotesNotSent(said)

    def to_run_model(self: _Measured, own: bool | None) -> bool:
        """`own` as given (a summary's, by its model: compacting.py), else the session notes': the run's
        model writes them unless a notes model of its own does (memory.py's shared and separate paths)."""
        return own if own is not None else getattr(self.memory, "notes_model", None) is None

    def not_fitting(self: _Measured, messages: Sequence[ModelMessage], kind: str,
                    window: int | None = None, own: bool | None = None) -> str | None:
        """Why a request of the library's own (`kind`: "summary", "notes") of `messages` cannot be sent, judged
        as a request is (`fit_size`, the instructions and tools counted, the estimate's margin kept free) against
        `window` (a side model's own; else the run's), the notes' also against the run's per-request input limit
        (`past_input_limit`); None when it fits with room for a reply. `own`: sent to the run's model."""
        size, whose = self.own_request_size(messages, self.to_run_model(own)), f"the {kind} model's" if window else "the"
        window = window or self.limits.window
        if window - estimate_margin(window) - size >= 1:  # a summary request was cut to that limit (`summary_room`)
            return past_input_limit(size) if kind == "notes" else None
        return (f"the {kind} request would take {size:,} tokens of {whose} {window:,}-token window, leaving "
                f"no room for the {kind} ({self.sent_whole(messages, kind)}): not sent")

    def sent_whole(self: _Measured, messages: Sequence[ModelMessage], kind: str) -> str:
        """What a request of the library's own sends whatever its messages are cut to, and how much of the
        request it takes: the instructions, the system prompt and the tool definitions where the agent has
        them (the latest request's), and its own instruction (the last message). Said of an agent with none
        of them, the first three sent the reader looking for what was not there."""
        params = self.last_params
        prompts = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts
                   if isinstance(p, SystemPromptPart) and p.content.strip()]
        instructions = any(str(getattr(p, "content", "")).strip()
                           for p in (getattr(params, "instruction_parts", None) or []))
        tools = bool(getattr(params, "function_tools", None) or self._tool_defs()[2])
        said = [what for what, there in (("the instructions", instructions), ("the system prompt", prompts),
                                         ("the tool definitions", tools)) if there]
        said.append("the summary's own instruction" if kind == "summary" else f"the {kind}' own instruction")
        own = self.estimate(messages[-1:]) if messages and isinstance(messages[-1], ModelRequest) else 0
        whole = self.calibration.tokens(own + sum(tokens.part_tokens(p) for p in prompts)
                                        + (self.overhead if instructions or tools else 0))
        if len(said) == 1:
            return f"{said[0]}, sent whole, takes {whole:,} of them"
        return f"{', '.join(said[:-1])} and {said[-1]}, sent whole, take {whole:,} of them"

    def _measured(self: _Measured, view: list[ModelMessage], builtin: int) -> int:
        """`measure(view)`, given the built-in estimate of `view` already made."""
        if self.token_counter is not None:
            return self.measure(view)
        return self.calibration.tokens(builtin - min(builtin, self.left_out(view)) + self.overhead)


def output_defs(params: Any, profile: Any) -> int:
    """Estimated tokens of what a request sends to define the agent's output, beyond its instructions
    and function tools: the output tools' definitions as they are sent, wrapped as a tool is (a
    structured `output_type`'s `final_result`, `ToolOutput`); a `NativeOutput`'s schema, sent as the
    response format (and in the instructions too where the model's profile asks it); a
    `PromptedOutput`'s, sent in the instructions pydantic-ai adds after the hooks have run (unless
    they hold it already). A mode the model resolves later ('auto') counts the largest of these. Left
    out, a large output model (40 fields described, some 3,000 tokens) sent requests over the window."""
    mode, obj = getattr(params, "output_mode", "text"), getattr(params, "output_object", None)
    tools = sum(tokens.text_tokens(json.dumps({"type": "function", "function": {
        "name": t.name, "description": t.description or "", "parameters": t.parameters_json_schema,
        "strict": True}}) + ", ") for t in (getattr(params, "output_tools", None) or []))
    if obj is None or mode not in ("native", "prompted", "auto"):
        return tools if mode in ("tool", "auto") else 0
    asks: Callable[[str], Any] = profile.get if isinstance(profile, dict) else lambda k: getattr(profile, k, None)
    schema = json.dumps({**obj.json_schema, **({"title": obj.name} if obj.name else {}),
                         **({"description": obj.description} if obj.description else {})})
    template = getattr(params, "prompted_output_template", None)  # False: no schema in the instructions
    template = "" if template is False else str(template or asks("prompted_output_template")
                                                 or DEFAULT_PROMPTED_OUTPUT_TEMPLATE)
    said = template.replace("{schema}", schema) if "{schema}" in template else f"{template}\n\n{schema}"
    held = "\n".join(str(getattr(p, "content", "")) for p in (getattr(params, "instruction_parts", None) or []))
    prompted = 0 if not template or said.strip() in held else tokens.text_tokens(said) + tokens.PER_MESSAGE_OVERHEAD
    native = tokens.text_tokens(json.dumps({"type": "json_schema", "json_schema": {
        "name": obj.name or "final_result", "description": obj.description or "", "schema": obj.json_schema,
        "strict": True}})) + (prompted if asks("native_output_requires_schema_in_instructions") else 0)
    return {"native": native, "prompted": prompted}.get(mode, max(tools, native, prompted))
