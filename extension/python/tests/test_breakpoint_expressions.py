"""Hit conditions and log message templates."""

from __future__ import annotations

import pytest

from dapperdbg.breakpoints.expressions import (
    ExpressionError,
    compile_condition,
    parse_hit_condition,
    parse_log_message,
)

# (hit condition, hit counts 1..6 that stop)
HIT_CONDITIONS = [
    ("3", [3]),
    ("==2", [2]),
    (" > 4 ", [5, 6]),
    (">=5", [5, 6]),
    ("<3", [1, 2]),
    ("<=1", [1]),
    ("%3", [3, 6]),
]


@pytest.mark.parametrize("text,stops", HIT_CONDITIONS)
def test_hit_conditions(text, stops):
    condition = parse_hit_condition(text)
    assert [hits for hits in range(1, 7) if condition.should_stop(hits)] == stops


@pytest.mark.parametrize("text", ["", "x", "==", "3 times", "%0", "!=3", "-1"])
def test_bad_hit_conditions(text):
    with pytest.raises(ExpressionError):
        parse_hit_condition(text)


LOG_MESSAGES = [
    ("plain", "plain"),
    ("x={x}", "x=5"),
    ("{x}+{x}={x + x}", "5+5=10"),
    ("{{x}} is {x}", "{x} is 5"),
    ("dict { {'a': x}['a'] }", "dict 5"),
    ("{missing}", "<NameError: name 'missing' is not defined>"),
    ("{1/0} after", "<ZeroDivisionError: division by zero> after"),
]


@pytest.mark.parametrize("text,expected", LOG_MESSAGES)
def test_log_messages(text, expected):
    assert parse_log_message(text).render({}, {"x": 5}) == expected


@pytest.mark.parametrize("text", ["{", "}", "a {x", "{}", "{x +}"])
def test_bad_log_messages(text):
    with pytest.raises(ExpressionError):
        parse_log_message(text)


def test_conditions_compile_once_to_code():
    code = compile_condition("a > 1")
    assert eval(code, {}, {"a": 2}) is True
    with pytest.raises(ExpressionError, match="Invalid condition"):
        compile_condition("a >")
