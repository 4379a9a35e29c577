"""Evaluating and assigning in a stopped frame (run on a parked thread, as the debugger
does), the hover side-effect check and evaluate names."""

from __future__ import annotations

import sys

import parked as parked_module
import pytest
from parked import parked_thread

from dapperdbg.inspection.evaluation import (
    NO_RESULT,
    EvaluationError,
    assign_expression,
    evaluate_name_for,
    hover_refusal,
    run_code,
)

EXPRESSIONS = [
    ("number + 1", False, 8),
    ("[x * number for x in items]", False, [7, 14, 21]),
    ("(lambda: number * 2)()", False, 14),
    ("argument", False, "arg"),
    ("MODULE_CONSTANT", False, "module level"),
    ("len(items)", False, 3),
    ("  number  ", False, 7),
    ("y = 5\ny * number", True, 35),
    ("for i in range(3):\n    total = i\ntotal", True, 2),
    ("if True:\n    z = 1", True, NO_RESULT),
    ("    a = 1\n    a + 1", True, 2),
]


@pytest.mark.parametrize("text,statements,expected", EXPRESSIONS)
def test_evaluate(text, statements, expected):
    with parked_thread() as parked:
        assert parked.run(lambda: run_code(parked.frame, text, statements)) == expected


ERRORS = [
    ("undefined_name", False, "NameError: name 'undefined_name' is not defined"),
    ("1 / 0", False, "ZeroDivisionError: division by zero"),
    ("number = 1", False, "SyntaxError"),
    ("def broken(:", True, "SyntaxError"),
    ("raise KeyError('k')", True, "KeyError: 'k'"),
    # An exception without a message is named, never an empty reason.
    ("bytearray(2 ** 60)", False, "MemoryError"),
    ("raise RuntimeError", True, "RuntimeError"),
]


@pytest.mark.parametrize("text,statements,message", ERRORS)
def test_evaluation_errors(text, statements, message):
    with parked_thread() as parked, pytest.raises(EvaluationError) as error:
        parked.run(lambda: run_code(parked.frame, text, statements))
    assert str(error.value).startswith(message)


def after_running(statements: list[tuple[str, bool]]) -> dict:
    with parked_thread() as parked:
        for text, allow in statements:
            parked.run(lambda text=text, allow=allow: run_code(parked.frame, text, allow))
    return parked.after


ASSIGNMENTS = [
    ([("number = 42", True)], {"number": 42}),
    ([("items.append(4)", True)], {"items": [1, 2, 3, 4]}),
    ([("captured = ['changed']", True)], {"captured": ["changed"]}),
    ([("number += 1", True), ("number += 1", True)], {"number": 9}),
    ([("(text := 'walrus')", False)], {"text": "walrus"}),
]


@pytest.mark.parametrize("statements,expected", ASSIGNMENTS)
def test_assignments_reach_the_frame(statements, expected):
    after = after_running(statements)
    for name, value in expected.items():
        assert after[name] == value


def test_new_names_join_the_frames_locals_and_globals_stay_globals():
    # As at pdb's prompt: a name the console makes is the frame's (the Locals view shows
    # it and later evaluations there see it); a name the module has is the module's.
    try:
        with parked_thread() as parked:
            parked.run(lambda: run_code(parked.frame, "console_helper = 5", True))
            parked.run(lambda: run_code(parked.frame, "MODULE_CONSTANT = 'changed'", True))
            seen = parked.run(lambda: run_code(parked.frame, "console_helper + 1", False))
            in_locals = parked.run(lambda: parked.frame.f_locals.get("console_helper"))
            try:
                parked.run(lambda: run_code(parked.frame, "del console_helper", True))
            except EvaluationError as error:
                # 3.13's frame proxy cannot remove a name once added (3.14's can).
                assert sys.version_info[:2] == (3, 13), error
            else:
                assert not parked.run(lambda: "console_helper" in parked.frame.f_locals)
        assert (seen, in_locals) == (6, 5)
        assert not hasattr(parked_module, "console_helper")
        assert parked_module.MODULE_CONSTANT == "changed"
    finally:
        parked_module.MODULE_CONSTANT = "module level"


@pytest.mark.parametrize("text,shown", [
    ("print('x')", False), ("[].append(1)", False), ("x = None\nprint(x)", False),
    ("None", True), ("number and None", True), ("len(items)", True),
])
def test_the_console_does_not_echo_the_none_a_call_returns(text, shown):
    with parked_thread() as parked:
        result = parked.run(lambda: run_code(parked.frame, text, True, echo_none=False))
    assert (result is not NO_RESULT) == shown


def test_deleting_a_local_is_refused_and_the_local_kept():
    with parked_thread() as parked, pytest.raises(EvaluationError, match="cannot be deleted"):
        parked.run(lambda: run_code(parked.frame, "del text", True))
    assert parked.after["text"] == "hi"


SET_EXPRESSIONS = [
    ("items[0]", "100", "items", [100, 2, 3]),
    ("number", "number * 2", "number", 14),
    ("text", "'set'", "text", "set"),
]


@pytest.mark.parametrize("target,value,name,expected", SET_EXPRESSIONS)
def test_set_expression(target, value, name, expected):
    with parked_thread() as parked:
        parked.run(lambda: assign_expression(parked.frame, target, value))
    assert parked.after[name] == expected


def test_set_expression_refuses_what_cannot_be_assigned():
    with parked_thread() as parked, pytest.raises(EvaluationError, match="cannot be assigned"):
        parked.run(lambda: assign_expression(parked.frame, "number + 1", "2"))


HOVER = [
    ("name", None),
    ("a.b.c", None),
    ("data['key'][0]", None),
    ("data[index]", None),
    ("items[-1]", None),
    ("items[1:3]", None),
    ("f()", "hover does not call functions"),
    ("a.b()", "hover does not call functions"),
    ("data[g()]", "hover does not call functions"),
    ("(x := 1)", "hover does not assign"),
    ("a + b", "hover only reads names, attributes and items (found BinOp)"),
    ("[x for x in y]", "hover only reads names, attributes and items (found ListComp)"),
    ("lambda: 1", "hover only reads names, attributes and items (found Lambda)"),
    ("x = 1", "not an expression"),
]


@pytest.mark.parametrize("expression,refusal", HOVER)
def test_hover_refusal(expression, refusal):
    assert hover_refusal(expression) == refusal


@pytest.mark.parametrize("expression,name", [
    ("x", "x"),
    (" a.b ", "a.b"),
    ("d['k']", "d['k']"),
    ("a + b", "(a + b)"),
    ("f()", "(f())"),
])
def test_evaluate_name(expression, name):
    assert evaluate_name_for(expression) == name


def test_module_level_code_runs_in_the_module_globals():
    namespace = {"__name__": "fake_module", "base": 2}
    exec("import sys\nframe = sys._getframe()", namespace)
    frame = namespace["frame"]
    run_code(frame, "def twice():\n    return base * 2", True)
    namespace["base"] = 5  # A later change of the module is seen by the function.
    assert run_code(frame, "twice()", False) == 10
    assign_expression(frame, "base", "7")
    assert namespace["base"] == 7 and "__dapper_new_value__" not in namespace
