"""The journal: every request the fake received and what it answered, in order.

The grader and the notebooks read it to ask what a loop sent at step k. It renders itself as a
turn-by-turn transcript: HTML in Jupyter (``_repr_html_``) and text everywhere else (``str``).

Terms: an *exchange* is one HTTP request and its answer. A *step* is an exchange on
``/v1/messages`` (``count_tokens`` calls are journaled but are not steps). Step numbers are
0-based, like Python lists.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any, Iterator

from .._i18n import language
from ._models import MODELS, cost_usd

__all__ = ["Exchange", "Journal", "JOURNAL_LIMIT"]

TEXT = {
    "en": {
        "title": "Journal of scenario {scenario!r}: {steps} step(s), stop reasons {stops}, total ${cost:.6f}",
        "html_title": "Journal of scenario {scenario!r}: {steps} step(s), total ${cost:.6f}",
        "step": "step", "sent": "sent", "got": "got ", "reply": "reply", "empty": "(empty)",
        "same": " (same request as step {k})", "rule": " (rule {rule})",
        "dropped": "({n} earlier exchange(s) dropped: the journal keeps the last {limit})",
        "unused_tools": "warning: tools sent with the requests but never called in this run: {names} "
                        "(nothing in this run tested them).",
    },
    "es": {
        "title": "Registro del escenario {scenario!r}: {steps} paso(s), stop reasons {stops}, total ${cost:.6f}",
        "html_title": "Registro del escenario {scenario!r}: {steps} paso(s), total ${cost:.6f}",
        "step": "paso", "sent": "enviado", "got": "recibido", "reply": "respuesta", "empty": "(vacío)",
        "same": " (misma petición que el paso {k})", "rule": " (regla {rule})",
        "dropped": "({n} intercambio(s) anteriores descartados: el registro guarda los últimos {limit})",
        "unused_tools": "aviso: herramientas enviadas en las peticiones pero nunca llamadas en esta ejecución: {names} "
                        "(nada en esta ejecución las probó).",
    },
}
"""Learner-facing words of the transcript; field names (stop_reason, tool_use...) stay as the API spells them."""


@dataclass
class Exchange:
    """One request and the fake's answer."""

    index: int
    """Position in the journal (0-based), count_tokens calls included, counted from the client's
    first request: it stays the same when earlier exchanges are dropped (see :class:`Journal`)."""
    endpoint: str
    """``"messages"``, ``"count_tokens"``, or ``"unknown"`` for a path the fake does not serve."""
    request: dict[str, Any] | None
    """The parsed body as sent (None if it was not valid JSON)."""
    messages: list[Any]
    """The whole conversation the request stands for (a thread continuation expanded)."""
    stream: bool
    """Whether the request asked for SSE."""
    status: int
    """HTTP status of the answer."""
    request_id: str
    """The ``request-id`` header sent back (``req_...``)."""
    response: dict[str, Any] | None = None
    """The Message JSON (for streams, the complete message the events add up to)."""
    error: dict[str, Any] | None = None
    """``{"type", "message"}`` of an error answer (HTTP error or mid-stream ``error`` event)."""
    rule: str | None = None
    """The validation rule id of a 4xx (reference section 7 numbering), ``"fault"``, or ``"runaway"``."""
    turn: int | None = None
    """How many assistant turns the conversation held (the scenario's reply index)."""
    repeat_of: int | None = None
    """Step number of an earlier step that sent exactly the same request, if any."""
    step: int | None = None
    """0-based step number (``/v1/messages`` exchanges only)."""
    attempt: int = 0
    """The SDK's ``x-stainless-retry-count`` (0 on a first attempt)."""

    @property
    def ok(self) -> bool:
        """True when a Message came back complete."""
        return self.status == 200 and self.response is not None and self.error is None

    @property
    def stop_reason(self) -> str | None:
        """The Message's ``stop_reason`` (None on errors)."""
        return self.response.get("stop_reason") if self.response and self.error is None else None

    @property
    def usage(self) -> dict[str, Any]:
        """The Message's ``usage`` (empty on errors)."""
        return dict(self.response.get("usage", {})) if self.response and self.error is None else {}

    @property
    def cost_usd(self) -> float:
        """Price of this exchange in USD (0 for errors), from the model price table."""
        if not self.response or self.error is not None or self.response.get("model") not in MODELS:
            return 0.0
        return cost_usd(self.usage, self.response["model"])

    @property
    def content(self) -> list[dict[str, Any]]:
        """The response's content blocks (empty on errors)."""
        return list(self.response.get("content", [])) if self.response else []

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "index": self.index, "step": self.step, "endpoint": self.endpoint, "stream": self.stream,
            "status": self.status, "request_id": self.request_id, "rule": self.rule, "turn": self.turn,
            "repeat_of": self.repeat_of, "attempt": self.attempt, "request": self.request,
            "messages": self.messages, "response": self.response, "error": self.error,
            "cost_usd": self.cost_usd,
        }


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _block_line(block: Any) -> str:
    if not isinstance(block, dict):
        return _short(block)
    kind = block.get("type")
    if kind == "text":
        return f"text: {_short(block.get('text', ''))}"
    if kind in ("tool_use", "server_tool_use"):
        return f"{kind} {block.get('name')}({_short(block.get('input', {}), 60)}) id={block.get('id')}"
    if kind == "tool_result":
        flag = " is_error" if block.get("is_error") else ""
        return f"tool_result for {block.get('tool_use_id')}{flag}: {_short(block.get('content', ''), 60)}"
    if kind == "thinking":
        return f"thinking: {_short(block.get('thinking', ''), 60)}"
    return f"{kind}"


def _content_lines(content: Any, empty: str = "(empty)") -> list[str]:
    if isinstance(content, str):
        return [f"text: {_short(content)}"]
    if isinstance(content, list):
        return [_block_line(b) for b in content] or [empty]
    return [_short(content)]


JOURNAL_LIMIT = 1000
"""How many exchanges a journal keeps (the most recent ones). One run of a loop makes at most a
few hundred ``/v1/messages`` requests before :class:`agentlab.RunawayLoop`, so the bound only bites
on a long-lived client: many independent requests (each a new conversation, up to the client's
``FakeAPI.client_limit``), or ``count_tokens`` calls and paths the fake does not serve."""


@dataclass
class Journal:
    """Every exchange of one fake client, in order: the last :attr:`limit` of them.

    Older exchanges are dropped first and counted in :attr:`dropped`; an exchange's ``index``
    and ``step`` stay absolute (counted from the client's first request), and :meth:`step` takes
    the absolute step number.
    """

    scenario: str = ""
    """Name of the scenario the client runs."""
    exchanges: list[Exchange] = field(default_factory=list)
    """The exchanges kept, oldest first (add with :meth:`append`)."""
    limit: int = JOURNAL_LIMIT
    """The most exchanges kept."""
    dropped: int = 0
    """How many earlier exchanges were dropped to respect :attr:`limit`."""

    @property
    def next_index(self) -> int:
        """The ``index`` of the next exchange: every exchange so far, dropped ones included."""
        return self.dropped + len(self.exchanges)

    def append(self, exchange: Exchange) -> None:
        """Add ``exchange`` at the end, dropping the oldest one past :attr:`limit`."""
        self.exchanges.append(exchange)
        excess = len(self.exchanges) - max(1, self.limit)
        if excess > 0:
            del self.exchanges[:excess]
            self.dropped += excess

    def __len__(self) -> int:
        return len(self.exchanges)

    def __iter__(self) -> Iterator[Exchange]:
        return iter(self.exchanges)

    def __getitem__(self, index: int) -> Exchange:
        return self.exchanges[index]

    @property
    def steps(self) -> list[Exchange]:
        """The ``/v1/messages`` exchanges, in order (``steps[k]`` is step k)."""
        return [e for e in self.exchanges if e.endpoint == "messages"]

    def step(self, k: int) -> Exchange:
        """Step ``k`` (0-based, absolute; negative counts from the end).

        Raises:
            IndexError: with the number of steps, when there is no step ``k`` (or it was dropped).
        """
        steps = self.steps
        first = steps[0].step or 0 if steps else 0
        try:
            if k >= 0 and k < first:
                raise IndexError
            return steps[k - first if k >= 0 else k]
        except IndexError:
            raise IndexError(f"no step {k}: the loop made {first + len(steps)} request(s) to /v1/messages"
                             + (f" and the journal keeps the last {len(steps)}" if first else "")) from None

    def sent(self, k: int) -> list[Any]:
        """The messages (whole conversation) the loop sent at step ``k``."""
        return self.step(k).messages

    @property
    def stop_reasons(self) -> list[str | None]:
        """``stop_reason`` of every step (None where the step got an error)."""
        return [e.stop_reason for e in self.steps]

    @property
    def errors(self) -> list[Exchange]:
        """Exchanges answered with an error (HTTP or mid-stream)."""
        return [e for e in self.exchanges if e.error is not None]

    @property
    def repeats(self) -> list[Exchange]:
        """Steps that re-sent a request identical to an earlier one (paying again for the same reply)."""
        return [e for e in self.steps if e.repeat_of is not None]

    @property
    def usage(self) -> dict[str, int]:
        """Token totals over every step: input, output and both cache fields."""
        keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        return {k: sum(int(e.usage.get(k) or 0) for e in self.steps) for k in keys}

    @property
    def cost_usd(self) -> float:
        """Total price in USD of every step."""
        return sum(e.cost_usd for e in self.steps)

    @property
    def unused_tools(self) -> list[str]:
        """Client tools the loop sent with a request that got a Message, which the model never
        called in this run (no ``tool_use`` block of that name in any reply, nor in the
        conversation sent), in the order first sent. A loop can "pass" on these while nothing
        tested them (e.g. the weather scenario given a ``send_email`` tool)."""
        sent: dict[str, None] = {}
        called: set[str] = set()
        for e in self.exchanges:
            if e.endpoint != "messages":
                continue
            for block in e.content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    called.add(str(block.get("name")))
            for message in e.messages:
                content = message.get("content") if isinstance(message, dict) else None
                if isinstance(message, dict) and message.get("role") == "assistant" and isinstance(content, list):
                    called.update(str(b.get("name")) for b in content if isinstance(b, dict) and b.get("type") == "tool_use")
            tools = e.request.get("tools") if e.ok and isinstance(e.request, dict) else None
            if isinstance(tools, list):
                for tool in tools:
                    if isinstance(tool, dict) and tool.get("type") in (None, "custom") and isinstance(tool.get("name"), str):
                        sent.setdefault(tool["name"], None)
        return [name for name in sent if name not in called]

    @property
    def warnings(self) -> list[str]:
        """Learner-facing warnings about the run, in the learner's language (empty when there is
        nothing to say): today one, when :attr:`unused_tools` is not empty."""
        return self.warnings_in()

    def warnings_in(self, lang: str | None = None) -> list[str]:
        """:attr:`warnings` in ``lang`` (``"en"`` or ``"es"``; default the learner's language)."""
        unused = self.unused_tools
        if not unused:
            return []
        return [TEXT[language(lang)]["unused_tools"].format(names=", ".join(unused))]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"scenario": self.scenario, "exchanges": [e.to_dict() for e in self.exchanges],
                "dropped": self.dropped, "usage": self.usage, "cost_usd": self.cost_usd, "unused_tools": self.unused_tools}

    # rendering ---------------------------------------------------------------------------

    def _step_summary(self, e: Exchange, t: dict[str, str]) -> str:
        head = f"{t['step']} {e.step}" if e.step is not None else f"#{e.index} {e.endpoint}"
        if e.error is not None:
            rule = t["rule"].format(rule=e.rule) if e.rule and e.rule not in ("fault", "runaway") else ""
            return f"{head}: HTTP {e.status} {e.error.get('type')}{rule}: {e.error.get('message')}"
        if e.endpoint == "count_tokens":
            return f"{head}: input_tokens={e.response.get('input_tokens') if e.response else None}"
        if e.endpoint == "models":
            query = e.request.get("query") if e.request else ""
            return f"{head}: GET {e.request.get('path') if e.request else ''}{'?' + query if query else ''}"
        u = e.usage
        usage = (f"in={u.get('input_tokens')} out={u.get('output_tokens')} "
                 f"cache_write={u.get('cache_creation_input_tokens')} cache_read={u.get('cache_read_input_tokens')}")
        repeat = t["same"].format(k=e.repeat_of) if e.repeat_of is not None else ""
        return f"{head}: stop_reason={e.stop_reason}  {usage}  ${e.cost_usd:.6f}{repeat}"

    def _new_messages(self) -> Iterator[tuple[Exchange, list[tuple[int, Any, Any]]]]:
        """Each exchange with the messages it sent that differ from what the previous step sent:
        the new ones at the end, and also any earlier message that was added, changed or removed
        (a fixed loop, an edited turn), as ``(index, role, content)`` from the first difference."""
        previous: list[Any] = []
        for e in self.exchanges:
            new: list[tuple[int, Any, Any]] = []
            if e.endpoint == "messages":
                start = 0
                while start < min(len(previous), len(e.messages)) and previous[start] == e.messages[start]:
                    start += 1
                for i, m in enumerate(e.messages[start:], start):
                    new.append((i, m.get("role") if isinstance(m, dict) else "?", m.get("content") if isinstance(m, dict) else m))
                previous = e.messages
            yield e, new

    def to_text(self, *, show_messages: bool = True, lang: str | None = None) -> str:
        """The transcript as plain text: per step, what was sent (new messages) and what came back.

        Args:
            show_messages: False for one line per exchange.
            lang: ``"en"`` or ``"es"`` (default: :func:`agentlab._i18n.language`).
        """
        t = TEXT[language(lang)]
        lines = [t["title"].format(scenario=self.scenario, steps=len(self.steps), stops=self.stop_reasons, cost=self.cost_usd)]
        if self.dropped:
            lines.append(t["dropped"].format(n=self.dropped, limit=self.limit))
        lines += self.warnings_in(lang)
        for e, new in self._new_messages():
            lines.append(self._step_summary(e, t))
            if not show_messages:
                continue
            for i, role, content in new:
                lines += [f"    {t['sent']} messages.{i} {role}: {line}" for line in _content_lines(content, t["empty"])]
            if e.ok and e.endpoint == "messages":
                lines += [f"    {t['got']} {line}" for line in _content_lines(e.content, t["empty"])]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Journal(scenario={self.scenario!r}, steps={len(self.steps)}, stop_reasons={self.stop_reasons})"

    def _repr_html_(self) -> str:
        t = TEXT[language()]
        esc = html.escape
        rows = []
        for e, new in self._new_messages():
            sent = "".join(
                f"<div><code>messages.{i}</code> <b>{esc(str(role))}</b>: "
                + "<br>".join(esc(line) for line in _content_lines(content, t["empty"])) + "</div>"
                for i, role, content in new
            )
            got = "<br>".join(esc(line) for line in _content_lines(e.content, t["empty"])) if e.ok and e.endpoint == "messages" else ""
            colour = "#b00020" if e.error is not None else "#1b5e20"
            reply = f"<div><i>{t['reply']}</i>: {got}</div>" if got else ""
            rows.append(
                f"<tr><td style='text-align:left;vertical-align:top;color:{colour}'><b>{esc(self._step_summary(e, t))}</b></td></tr>"
                f"<tr><td style='text-align:left;padding-left:1.5em'>{sent}{reply}</td></tr>"
            )
        title = esc(t["html_title"].format(scenario=self.scenario, steps=len(self.steps), cost=self.cost_usd))
        if self.dropped:
            title += "<br>" + esc(t["dropped"].format(n=self.dropped, limit=self.limit))
        warnings = "".join(f"<p style='color:#8a5300'>{esc(w)}</p>" for w in self.warnings)
        return f"<div><p><b>{title}</b></p>{warnings}<table style='text-align:left'>{''.join(rows)}</table></div>"
