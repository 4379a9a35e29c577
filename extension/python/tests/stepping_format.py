"""The stepping cases (stepping_cases/*.py): how a case file is read, and how its requests
are played against a debug session that speaks DAP, whether that is the debuggee itself
(test_stepping_cases.py) or an adapter over TCP (stepping_compare.py).

A case file is a runnable program whose leading comment lines say what to do with it:

    # What the case is about, in words (any comment line without a keyword).
    # break: NAME                  a breakpoint on the line marked `# @NAME`
    # break: NAME if EXPR          ... with a condition
    # break: NAME hit EXPR         ... with a hit condition (hit EXPR if EXPR: both)
    # exceptions: raised uncaught  the exception filters to set (default: none)
    # start -> breakpoint@main:call
    # next -> step@main:after {x=3}
    # continue -> exit 0

A line `ACTION -> OUTCOME` is one request and what should follow it. The actions: `start`
(configurationDone), `next`, `stepIn`, `stepOut`, `continue`, `pause`, `set NAME = VALUE`
(setVariable in the top frame's locals), `evaluate EXPR` (in the top frame) and `frame`
(the top frame of a thread's call stack, asked without resuming anything), and `wait
SECONDS` (let that much time pass, for a thread to get somewhere). An action acts
on the thread of the last stop unless it names one: `continue (b)`.

The outcomes: `REASON@FUNCTION:LINE`, then optionally `{name=value, ...}` (the values of
locals of the stopped frame, as the debugger shows them) and `(thread)`; `FUNCTION:LINE`
for `frame`; `exit CODE` (the program ended); `running` (the program runs on: the player
waits a moment and expects nothing); `waited` for wait; `= VALUE` for set and evaluate.
LINE is a marker name or a line number, or several separated by `|` when any of them is
right (a pause). A
FUNCTION matches the frame's name or the last dotted part of it, so `__init__` matches the
`Box.__init__` that 3.11+ shows.

A line may begin with conditions in brackets, all of which must hold for it to count:
`[py>=3.12]`, `[py<3.12]`, `[settrace]`, `[monitoring]`. That is how a case says what
legitimately differs between Pythons (a comprehension is a frame of its own before 3.12).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent / "stepping_cases"
# How long one request may take to come to its outcome.
OUTCOME_TIMEOUT = 10.0
# How long a program is left running after `-> running` before the next request.
RUNNING_PAUSE = 0.3

_MARKER = re.compile(r"#\s*@([A-Za-z_]\w*)")
_CONDITION = re.compile(r"^\[([^\]]+)\]\s*")
_THREAD = re.compile(r"\s*\(([A-Za-z_][\w.-]*)\)\s*$")
_STOP = re.compile(r"^(\w+)@(\S+?):(\S+)$")
_FRAME = re.compile(r"^(\S+?):(\S+)$")
STEP_ACTIONS = {"start", "next", "stepIn", "stepOut", "continue", "pause"}


@dataclass
class Expect:
    """What a request should come to; kind is stop, frame, exit, running or value."""

    kind: str
    reason: str = ""
    function: str = ""
    lines: tuple = ()
    locals: dict = field(default_factory=dict)
    thread: str | None = None
    value: str = ""


@dataclass
class Step:
    action: str
    argument: str
    thread: str | None
    expect: Expect
    text: str


@dataclass
class Breakpoint:
    marker: str
    line: int
    condition: str | None = None
    hit: str | None = None


@dataclass
class Case:
    name: str
    path: Path
    markers: dict
    breakpoints: list
    exception_filters: list
    steps: list
    threads_matter: bool

    def line_name(self, line: int) -> str:
        names = [name for name, number in self.markers.items() if number == line]
        return names[0] if names else str(line)


def case_names() -> list:
    return sorted(p.stem for p in CASES_DIR.glob("*.py") if not p.stem.startswith("_"))


def _holds(condition: str, version: tuple, backend: str) -> bool:
    for word in condition.split():
        match = re.fullmatch(r"py(>=|<|==)(\d+)\.(\d+)", word)
        if match:
            wanted = (int(match[2]), int(match[3]))
            held = {">=": version >= wanted, "<": version < wanted,
                    "==": version[:2] == wanted}[match[1]]
        elif word in ("settrace", "monitoring"):
            held = word == backend
        else:
            raise ValueError(f"unknown condition {word!r}")
        if not held:
            return False
    return True


def _split_locals(text: str) -> dict:
    # Values may hold commas themselves ([1, 2]): a new pair starts only at `, name=`.
    pairs = re.split(r",\s*(?=[A-Za-z_][\w.]*=)", text.strip())
    result = {}
    for pair in pairs:
        if pair:
            name, _, value = pair.partition("=")
            result[name.strip()] = value.strip()
    return result


def parse_expect(text: str, markers: dict) -> Expect:
    text = text.strip()
    thread = None
    match = _THREAD.search(text)
    if match and not text.startswith("="):
        thread = match[1].strip()
        text = text[: match.start()].strip()
    if text in ("running", "waited"):
        return Expect(text)
    if text.startswith("exit"):
        return Expect("exit", value=text[4:].strip() or "0")
    if text.startswith("="):
        return Expect("value", value=text[1:].strip())
    local_checks = {}
    if "{" in text:
        text, _, rest = text.partition("{")
        local_checks = _split_locals(rest.rstrip().rstrip("}"))
        text = text.strip()
    stop = _STOP.match(text)
    frame = _FRAME.match(text)
    if not stop and not frame:
        raise ValueError(f"cannot read the outcome {text!r}")
    reason, function, lines = (stop[1], stop[2], stop[3]) if stop else ("", frame[1], frame[2])
    wanted = []
    for token in lines.split("|"):
        if token.isdigit():
            wanted.append(int(token))
        elif token in markers:
            wanted.append(markers[token])
        else:
            raise ValueError(f"no line is marked `# @{token}`")
    return Expect("stop" if stop else "frame", reason, function, tuple(wanted), local_checks,
                  thread)


def read_markers(name: str, lines: list) -> dict:
    """Marker name -> line number, of the `# @NAME` comments of a case's lines."""
    markers = {}
    for number, line in enumerate(lines, 1):
        match = _MARKER.search(line)
        if match:
            if match[1] in markers:
                raise ValueError(f"{name}: the marker {match[1]} is on two lines")
            markers[match[1]] = number
    return markers


def parse_break(name: str, spec: str, markers: dict) -> Breakpoint:
    """A `break:` line's breakpoint, from what follows `break:`."""
    spec, _, condition = spec.strip().partition(" if ")
    marker, _, hit = spec.partition(" hit ")
    marker = marker.strip()
    if marker not in markers:
        raise ValueError(f"{name}: no line is marked `# @{marker}`")
    return Breakpoint(marker, markers[marker], condition.strip() or None, hit.strip() or None)


def applicable(header: list, version: tuple, backend: str):
    """The header's lines that hold on this Python and tracer, their `[condition]` off."""
    for text in header:
        match = _CONDITION.match(text)
        if match:
            if not _holds(match[1], version, backend):
                continue
            text = text[match.end():]
        yield text


def take_setting(name: str, text: str, markers: dict, breakpoints: list,
                 filters: list) -> bool:
    """Read a `break:` or `exceptions:` line into ``breakpoints`` or ``filters``; False
    for any other line."""
    if text.startswith("break:"):
        breakpoints.append(parse_break(name, text[len("break:"):], markers))
    elif text.startswith("exceptions:"):
        filters.extend(text[len("exceptions:"):].split())
    else:
        return False
    return True


def load_case(name: str, version: tuple, backend: str) -> Case:
    path = CASES_DIR / f"{name}.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    markers = read_markers(name, lines)
    breakpoints, filters, steps = [], [], []
    header = []
    for line in lines:
        if not line.startswith("#"):
            break
        header.append(line[1:].strip())
    for text in applicable(header, version, backend):
        if take_setting(name, text, markers, breakpoints, filters):
            continue
        if "->" in text:
            action_text, _, outcome = text.partition("->")
            action_text = action_text.strip()
            thread = None
            match = _THREAD.search(action_text)
            if match and action_text.split()[0] in STEP_ACTIONS | {"frame"}:
                thread = match[1].strip()
                action_text = action_text[: match.start()].strip()
            action, _, argument = action_text.partition(" ")
            if action not in STEP_ACTIONS | {"set", "evaluate", "frame", "wait"}:
                raise ValueError(f"{name}: unknown action {action!r}")
            steps.append(Step(action, argument.strip(), thread, parse_expect(outcome, markers),
                              text))
    threads_matter = any(s.thread or s.expect.thread for s in steps)
    return Case(name, path, markers, breakpoints, filters, steps, threads_matter)


# Playing a case.


class Ended(Exception):
    """The program ended: no thread to ask about any more."""


def _frame_name_matches(expected: str, seen: str) -> bool:
    return seen == expected or seen.endswith("." + expected)


def render(case: Case, expect: Expect, seen: dict | None) -> str:
    """A seen outcome written in the case's own words (marker names, the same locals)."""
    if seen is None:
        return f"(nothing within {OUTCOME_TIMEOUT:g}s)"
    kind = seen["kind"]
    if kind == "exit":
        return f"exit {seen['code']}"
    if kind in ("value", "error"):
        return ("= " if kind == "value" else "error: ") + str(seen["value"])
    if kind in ("running", "waited"):
        return kind
    # A name that matches is written as the case writes it, so that two debuggers that
    # name a frame differently (a qualified name or not) read the same.
    function = seen["function"]
    if expect.function and _frame_name_matches(expect.function, function):
        function = expect.function
    where = f"{function}:{case.line_name(seen['line'])}"
    text = f"{seen['reason']}@{where}" if kind == "stop" else where
    if expect.kind == "stop" and expect.locals:
        shown = ", ".join(f"{k}={seen['locals'].get(k, '<absent>')}" for k in expect.locals)
        text += " {" + shown + "}"
    if case.threads_matter and seen.get("thread"):
        text += f" ({seen['thread']})"
    return text


def matches(expect: Expect, seen: dict | None) -> bool:
    if seen is None:
        return False
    if expect.kind in ("running", "waited"):
        return seen["kind"] == expect.kind
    if expect.kind == "exit":
        return seen["kind"] == "exit" and str(seen["code"]) == expect.value
    if expect.kind == "value":
        return seen["kind"] == "value" and seen["value"] == expect.value
    if seen["kind"] != expect.kind:
        return False
    if expect.kind == "stop" and seen["reason"] != expect.reason:
        return False
    if not _frame_name_matches(expect.function, seen["function"]):
        return False
    if seen["line"] not in expect.lines:
        return False
    if expect.thread and seen.get("thread") != expect.thread:
        return False
    return all(seen["locals"].get(k) == v for k, v in expect.locals.items())


class Player:
    """Plays a case's steps on a session, which has:

    - ``begin(case)``: launch the program and set its breakpoints and exception filters;
    - ``request(command, arguments) -> (success, body_or_message)``;
    - ``next_outcome(timeout) -> ("stopped", body) | ("exit", code) | None``.
    """

    def __init__(self, case: Case, session):
        self.case = case
        self.session = session
        self.current = None  # the thread id of the last stop
        self.ended = False

    def ask(self, command, arguments=None):
        success, body = self.session.request(command, arguments)
        if not success:
            raise RuntimeError(f"{command} failed: {body}")
        return body

    def thread_names(self) -> dict:
        return {t["id"]: t["name"] for t in self.ask("threads")["threads"]}

    def thread_id(self, name):
        if name is None:
            if self.current is None:
                # Before any stop: the main thread.
                names = self.thread_names()
                return next((i for i, n in names.items() if n == "MainThread"), min(names))
            return self.current
        for thread_id, thread_name in self.thread_names().items():
            if thread_name == name:
                return thread_id
        raise RuntimeError(f"no thread is named {name!r}")

    def top_frame(self, thread_id):
        frames = self.ask("stackTrace", {"threadId": thread_id, "levels": 1})["stackFrames"]
        if not frames:
            raise RuntimeError(f"thread {thread_id} has no frames")
        return frames[0]

    def locals_of(self, frame_id) -> tuple:
        scopes = self.ask("scopes", {"frameId": frame_id})["scopes"]
        reference = scopes[0]["variablesReference"]
        variables = self.ask("variables", {"variablesReference": reference})["variables"]
        return reference, {v["name"]: v["value"] for v in variables}

    def wait(self, expect: Expect):
        if expect.kind == "running":
            time.sleep(RUNNING_PAUSE)
            return {"kind": "running"}
        outcome = self.session.next_outcome(OUTCOME_TIMEOUT)
        if outcome is None:
            return None
        what, body = outcome
        if what == "exit":
            self.ended = True
            return {"kind": "exit", "code": body}
        self.current = body.get("threadId")
        frame = self.top_frame(self.current)
        seen = {"kind": "stop", "reason": body.get("reason"), "function": frame["name"],
                "line": frame["line"], "locals": {}, "thread": None}
        if self.case.threads_matter:
            seen["thread"] = self.thread_names().get(self.current)
        if expect.locals:
            seen["locals"] = self.locals_of(frame["id"])[1]
        return seen

    def play_step(self, step: Step):
        action = step.action
        if self.ended:
            return {"kind": "error", "value": "the program had ended"}
        if action == "wait":
            time.sleep(float(step.argument))
            return {"kind": "waited"}
        if action == "start":
            self.ask("configurationDone")
            return self.wait(step.expect)
        thread_id = self.thread_id(step.thread)
        if action in ("set", "evaluate", "frame"):
            frame = self.top_frame(thread_id)
            if action == "frame":
                return {"kind": "frame", "function": frame["name"], "line": frame["line"]}
            if action == "evaluate":
                success, body = self.session.request(
                    "evaluate", {"expression": step.argument, "frameId": frame["id"],
                                 "context": "repl"})
                if not success:
                    return {"kind": "error", "value": body}
                return {"kind": "value", "value": body["result"]}
            name, _, value = step.argument.partition("=")
            reference, _ = self.locals_of(frame["id"])
            success, body = self.session.request(
                "setVariable", {"variablesReference": reference, "name": name.strip(),
                                "value": value.strip()})
            if not success:
                return {"kind": "error", "value": body}
            return {"kind": "value", "value": body["value"]}
        self.ask(action, {"threadId": thread_id})
        return self.wait(step.expect)

    def play(self, keep_going=False) -> list:
        """[(step, seen, ok)] for every step, the first failing one last (what follows a
        wrong stop says little), or with keep_going every step until the program ends."""
        results = []
        self.session.begin(self.case)
        for step in self.case.steps:
            try:
                seen = self.play_step(step)
            except (RuntimeError, KeyError) as error:
                seen = {"kind": "error", "value": str(error)}
            ok = self.matches(step.expect, seen)
            results.append((step, seen, ok))
            if not ok and (not keep_going or seen is None or seen["kind"] in ("error", "exit")):
                break
        return results

    @staticmethod
    def matches(expect: Expect, seen: dict | None) -> bool:
        return matches(expect, seen)


def table(case: Case, results: list, columns=("expected", "seen")) -> str:
    """The case's steps with the expected and seen outcomes side by side; a wrong one is
    marked with `<<`."""
    rows = []
    for step, seen, ok in results:
        action = step.text.partition("->")[0].strip()
        rows.append((action, step.text.partition("->")[2].strip(),
                     render(case, step.expect, seen), "" if ok else "<<"))
    for step in case.steps[len(results):]:
        rows.append((step.text.partition("->")[0].strip(), step.text.partition("->")[2].strip(),
                     "(not played)", ""))
    headers = ("request",) + tuple(columns) + ("",)
    widths = [max(len(r[i]) for r in rows + [headers]) for i in range(3)]
    lines = []
    for row in [headers] + rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths))
                     + "  " + row[3])
    return "\n".join(line.rstrip() for line in lines)
