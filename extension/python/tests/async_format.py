"""The asyncio cases (async_cases/*.py): the stepping cases' format (stepping_format.py),
with what asyncio adds to check: call stacks through awaiting tasks, the tasks of the
event loop, tasks shown as threads, evaluation in the frames of waiting tasks and
``await`` in the debug console.

Besides the stepping cases' header lines (``break:``, ``ACTION -> OUTCOME``, conditions
in brackets), a case may have:

    # options: asyncioTasksAsThreads justMyCode=false
                                   launch options (a bare name is true)
    # exceptions: raised           the exception filters, as in the stepping cases
    # stack -> fetch:body | worker:call | awaited by Task 'main' (asyncio.gather) |
    #          main:gather         the whole call stack of the last stop's thread: frames
                                   as FUNCTION:LINE (LINE `*`: any), labels as their
                                   text, by ` | ` (a line ending with `|` goes on on
                                   the next one)
    # stack (fetch-0) -> ...       the call stack of a task (or thread) by its name
    # tasks -> main: waiting on asyncio.gather (2 awaitables) | fetch-0: running
                                   the dapper/tasks listing: NAME: DESCRIPTION, by id
    # threads -> MainThread | Task 'main' (waiting on Task 'child')
                                   the threads request's names, in order
    # evaluate@main EXPR -> = VALUE
                                   evaluate in the first frame of the stack named main
    # set@main NAME = VALUE -> = VALUE
                                   setVariable in that frame's locals
    # evaluate EXPR -> ! TEXT      the request fails with a message containing TEXT

A stop's ``(name)`` is the task that stopped: the stopped thread when tasks are threads
("Task 'fetch-1' (running)"; a greenlet's, "Greenlet 'worker-1' (worker)", likewise),
else as the stopped event's description says ("Paused on
breakpoint in Task 'fetch-1'"); the thread's name when no task runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from stepping_format import (
    _CONDITION,
    _FRAME,
    _THREAD,
    STEP_ACTIONS,
    Case,
    Expect,
    Player,
    Step,
    _frame_name_matches,
    applicable,
    parse_expect,
    read_markers,
    take_setting,
)
from stepping_format import matches as step_matches
from stepping_format import render as step_render

CASES_DIR = Path(__file__).resolve().parent / "async_cases"
LIST_ACTIONS = {"stack", "tasks", "threads"}
_IN_FRAME = re.compile(r"^(evaluate|set)@(\S+)$")
_TASK_IN_DESCRIPTION = re.compile(r" in Task '(.*)'$")
_TASK_THREAD = re.compile(r"^(?:Task|Greenlet) '(.*)' \(")


@dataclass
class AsyncCase(Case):
    options: dict = field(default_factory=dict)


@dataclass
class ListExpect(Expect):
    """A stack, tasks or threads outcome: its entries, in order."""

    entries: tuple = ()


def case_names(directory: Path = CASES_DIR) -> list:
    return sorted(p.stem for p in directory.glob("*.py") if not p.stem.startswith("_"))


def _stack_entry(text: str, markers: dict):
    frame = _FRAME.match(text)
    if frame and " " not in text:
        if frame[2] == "*":
            return ("frame", frame[1], None)  # Any line (the standard library's).
        lines = tuple(int(token) if token.isdigit() else markers[token]
                      for token in frame[2].split("/"))
        return ("frame", frame[1], lines)
    return ("label", text)


def _parse_outcome(action: str, text: str, markers: dict) -> Expect:
    text = text.strip()
    if text.startswith("!"):
        return Expect("error", value=text[1:].strip())
    if action in LIST_ACTIONS:
        entries = [entry.strip() for entry in text.split(" | ")] if text else []
        if action == "stack":
            return ListExpect("stack", entries=tuple(_stack_entry(e, markers) for e in entries))
        return ListExpect(action, entries=tuple(entries))
    return parse_expect(text, markers)


def load_case(name: str, version: tuple, backend: str,
              directory: Path = CASES_DIR) -> AsyncCase:
    path = directory / f"{name}.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    markers = read_markers(name, lines)
    breakpoints, filters, steps, options = [], [], [], {}
    for text in applicable(_header(lines), version, backend):
        if take_setting(name, text, markers, breakpoints, filters):
            continue
        if text.startswith("options:"):
            for word in text[len("options:"):].split():
                key, _, value = word.partition("=")
                options[key] = {"": True, "true": True, "false": False}.get(value, value)
        elif "->" in text:
            action_text, _, outcome = text.partition("->")
            action_text = action_text.strip()
            thread = None
            match = _THREAD.search(action_text)
            if match and action_text.split()[0] in STEP_ACTIONS | LIST_ACTIONS | {"frame"}:
                thread = match[1].strip()
                action_text = action_text[: match.start()].strip()
            action, _, argument = action_text.partition(" ")
            base = _IN_FRAME.match(action)
            known = STEP_ACTIONS | LIST_ACTIONS | {"set", "evaluate", "frame", "wait"}
            if (base[1] if base else action) not in known:
                raise ValueError(f"{name}: unknown action {action!r}")
            steps.append(Step(action, argument.strip(), thread,
                              _parse_outcome(action, outcome, markers), text))
    return AsyncCase(name, path, markers, breakpoints, filters, steps, True, options)


def _header(lines: list) -> list:
    """The header's lines, without their `#`; a line that ends with `|` goes on on the
    next one (long stacks)."""
    header: list = []
    joining = False
    for line in lines:
        if not line.startswith("#"):
            break
        text = line[1:].strip()
        if joining:
            # A continuation may repeat its line's conditions, for the eye.
            condition = _CONDITION.match(text)
            header[-1] += " " + (text[condition.end():] if condition else text)
        else:
            header.append(text)
        joining = text.endswith("|")
    return header


def _seen_stack_entry(frame: dict) -> tuple:
    if frame.get("presentationHint") == "label":
        return ("label", frame["name"])
    return ("frame", frame["name"], frame["line"])


def _entry_matches(expected: tuple, seen: tuple) -> bool:
    if expected[0] != seen[0]:
        return False
    if expected[0] == "label":
        return expected[1] == seen[1]
    return _frame_name_matches(expected[1], seen[1]) and (
        expected[2] is None or seen[2] in expected[2])


def matches(expect: Expect, seen: dict | None) -> bool:
    if seen is None:
        return False
    if expect.kind == "error":
        return seen["kind"] == "error" and expect.value in str(seen["value"])
    if isinstance(expect, ListExpect):
        if seen["kind"] != expect.kind:
            return False
        entries = seen["entries"]
        if expect.kind != "stack":
            return tuple(entries) == expect.entries
        return len(entries) == len(expect.entries) and all(
            _entry_matches(e, s) for e, s in zip(expect.entries, entries))
    return step_matches(expect, seen)


def render(case: Case, expect: Expect, seen: dict | None) -> str:
    if seen is not None and seen["kind"] in LIST_ACTIONS:
        if seen["kind"] != "stack":
            return " | ".join(seen["entries"])
        words = []
        for index, entry in enumerate(seen["entries"]):
            if entry[0] == "label":
                words.append(entry[1])
                continue
            name = entry[1]
            wanted = expect.entries[index] if isinstance(expect, ListExpect) and index < len(
                expect.entries) else None
            line = case.line_name(entry[2])
            if wanted and wanted[0] == "frame" and _frame_name_matches(wanted[1], name):
                name = wanted[1]
                line = "*" if wanted[2] is None else line
            words.append(f"{name}:{line}")
        return " | ".join(words)
    return step_render(case, expect, seen)


class AsyncPlayer(Player):
    """Plays an asyncio case: the stepping player, with the task that stopped as a
    stop's thread, and the actions above. The session also keeps ``last_description``,
    the description of the last stopped event."""

    def wait(self, expect: Expect):
        seen = super().wait(expect)
        if seen is not None and seen["kind"] == "stop":
            # A task shown as a thread is the stopped thread itself ("Task 'fetch-1'
            # (running)"); otherwise the stop's description names it.
            as_thread = _TASK_THREAD.match(seen.get("thread") or "")
            described = _TASK_IN_DESCRIPTION.search(self.session.last_description or "")
            if as_thread:
                seen["thread"] = as_thread[1]
            elif described:
                seen["thread"] = described[1]
        return seen

    def thread_id(self, name):
        if name is None:
            return super().thread_id(None)
        names = self.thread_names()
        found = next((i for i, n in names.items() if n == name), None)
        if found is None:
            # A task's or greenlet's thread by the name it quotes ("Greenlet 'w-1' (w)").
            found = next((i for i, n in names.items() if (quoted := _TASK_THREAD.match(n))
                          and quoted[1] == name), None)
        if found is not None:
            return found
        for loop in self.ask("dapper/tasks")["loops"]:
            for task in loop["tasks"]:
                if task["name"] == name:
                    return task["id"]
        raise RuntimeError(f"no thread or task is named {name!r}")

    def full_stack(self, thread_id) -> list:
        return self.ask("stackTrace", {"threadId": thread_id})["stackFrames"]

    def play_step(self, step: Step):
        action = step.action
        if self.ended:
            return {"kind": "error", "value": "the program had ended"}
        if action == "stack":
            frames = self.full_stack(self.thread_id(step.thread))
            return {"kind": "stack", "entries": [_seen_stack_entry(f) for f in frames]}
        if action == "tasks":
            entries = [f"{task['name']}: {task['description']}"
                       for loop in self.ask("dapper/tasks")["loops"] for task in loop["tasks"]]
            return {"kind": "tasks", "entries": entries}
        if action == "threads":
            return {"kind": "threads",
                    "entries": [t["name"] for t in self.ask("threads")["threads"]]}
        in_frame = _IN_FRAME.match(action)
        if in_frame:
            frames = self.full_stack(self.thread_id(step.thread))
            frame = next((f for f in frames if f.get("presentationHint") != "label"
                          and _frame_name_matches(in_frame[2], f["name"])), None)
            if frame is None:
                return {"kind": "error", "value": f"no frame named {in_frame[2]}"}
            return self._in_frame(in_frame[1], frame, step.argument)
        if action == "evaluate":
            frame = self.top_frame(self.thread_id(step.thread))
            return self._in_frame("evaluate", frame, step.argument)
        return super().play_step(step)

    def _in_frame(self, action: str, frame: dict, argument: str) -> dict:
        if action == "evaluate":
            success, body = self.session.request(
                "evaluate", {"expression": argument, "frameId": frame["id"], "context": "repl"})
            if not success:
                return {"kind": "error", "value": body}
            return {"kind": "value", "value": body["result"]}
        name, _, value = argument.partition("=")
        scopes = self.ask("scopes", {"frameId": frame["id"]})["scopes"]
        success, body = self.session.request(
            "setVariable", {"variablesReference": scopes[0]["variablesReference"],
                            "name": name.strip(), "value": value.strip()})
        if not success:
            return {"kind": "error", "value": body}
        return {"kind": "value", "value": body["value"]}

    @staticmethod
    def matches(expect: Expect, seen: dict | None) -> bool:
        return matches(expect, seen)


def table(case: Case, results: list) -> str:
    """The case's steps with the expected and seen outcomes, one below the other (stacks
    are long); a wrong one is marked with `<<`."""
    lines = []
    for step, seen, ok in results:
        action, _, expected = step.text.partition("->")
        lines.append(f"{action.strip()}{'' if ok else '   <<'}")
        lines.append(f"    expected: {expected.strip()}")
        lines.append(f"    seen:     {render(case, step.expect, seen)}")
    for step in case.steps[len(results):]:
        lines.append(f"{step.text.partition('->')[0].strip()}   (not played)")
    return "\n".join(lines)
