"""The compiled parts of a breakpoint: condition, hit condition, log message.

Everything is parsed and compiled once, when the breakpoint is set; a hit only
evaluates code objects. Invalid input raises ExpressionError with a user-facing message.
"""

from __future__ import annotations

# operator's own functions, from its C module: operator.py costs 1.4 ms to import on 3.12.
from _operator import eq, ge, gt, le, lt

from ..common.errors import RequestError
from ..common.patterns import LazyPattern
from ..common.records import Record

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types


class ExpressionError(RequestError):
    """A condition, hit condition or log message cannot be compiled."""


def compile_expression(text: str, filename: str) -> types.CodeType:
    """The expression compiled for ``eval``, from the debugger's cache where it can
    (common/code_cache.py says why)."""
    from ..common.code_cache import compile_text

    return compile_text(text, filename)


def compile_condition(text: str) -> types.CodeType:
    try:
        return compile_expression(text, "<breakpoint condition>")
    except SyntaxError as error:
        raise ExpressionError(f"Invalid condition {text!r}: {error.msg}") from None


def compile_expressions(breakpoint, spec: dict) -> None:
    """Set a breakpoint's ``condition`` (and ``condition_text``), ``hit_condition`` and
    ``log_template`` from a DAP breakpoint's ``condition``, ``hitCondition`` and
    ``logMessage``. Raises ExpressionError for one that does not compile."""
    if spec.get("condition"):
        breakpoint.condition = compile_condition(spec["condition"])
        breakpoint.condition_text = spec["condition"]
    if spec.get("hitCondition"):
        breakpoint.hit_condition = parse_hit_condition(spec["hitCondition"])
    if spec.get("logMessage"):
        breakpoint.log_template = parse_log_message(spec["logMessage"])


_HIT_CONDITION = LazyPattern(r"^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$")
_HIT_OPERATORS = {
    "==": eq,
    ">=": ge,
    "<=": le,
    ">": gt,
    "<": lt,
}


class HitCondition(Record, frozen=True):
    """``N`` or ``==N`` (stop on the Nth hit), ``>N``, ``>=N``, ``<N``, ``<=N``, ``%N``
    (every Nth hit). Hits are counted only when the condition, if any, is true."""

    operator_text: str
    count: int

    def should_stop(self, hits: int) -> bool:
        if self.operator_text == "%":
            return hits % self.count == 0
        return _HIT_OPERATORS[self.operator_text](hits, self.count)


def parse_hit_condition(text: str) -> HitCondition:
    match = _HIT_CONDITION.match(text)
    if not match:
        raise ExpressionError(
            f"Invalid hit condition {text!r}: expected a number, optionally after "
            "==, >, >=, <, <= or %"
        )
    operator_text = match.group(1) or "=="
    count = int(match.group(2))
    if operator_text == "%" and count == 0:
        raise ExpressionError(f"Invalid hit condition {text!r}: % needs a positive number")
    return HitCondition(operator_text, count)


class LogTemplate(Record, frozen=True):
    """A log message split into literal text and compiled ``{expression}`` parts."""

    parts: tuple[str | types.CodeType, ...]
    # The whole line, newline included, as the text of one expression: the literal
    # parts as a %-format of the expressions (``'x=%s\n' % ((x\n),)``; %s makes text of a
    # value as str() does, and the newline ends a comment the expression may have).
    # Compiled into instrumented copies for a log point alone on its line
    # (instrumentation/breakpoint_probes.py, ``log_call``). None if it does not compile.
    format_text: str | None = None
    # ``format_text`` compiled, for a message with at most one expression (the text
    # itself when it has none): one ``eval`` per hit. A message with more evaluates its
    # parts one by one, so that each that raises shows its own error and none runs twice.
    line_code: types.CodeType | str | None = None

    def render(self, global_vars: dict, local_vars) -> str:
        pieces = []
        for part in self.parts:
            if isinstance(part, str):
                pieces.append(part)
                continue
            try:
                value = eval(part, global_vars, local_vars)
                pieces.append(str(value))
            except Exception as error:
                pieces.append(_error_text(error))
        return "".join(pieces)

    def line(self, global_vars: dict, local_vars) -> str:
        """The message rendered, with its newline: what a hit writes."""
        code = self.line_code
        if code is None:
            return self.render(global_vars, local_vars) + "\n"
        if type(code) is str:
            return code
        try:
            return eval(code, global_vars, local_vars)
        except Exception as error:
            return self.line_after(error, global_vars, local_vars)

    def line_after(self, error: Exception, global_vars: dict, local_vars) -> str:
        """The line, where rendering it whole (``format_text``) raised ``error``. With
        one expression, that expression (or its str()) raised: the error is shown in
        its place. With more, each is evaluated again on its own, to show which raised
        (those before it run a second time)."""
        codes = [part for part in self.parts if not isinstance(part, str)]
        if len(codes) > 1:
            return self.render(global_vars, local_vars) + "\n"
        text = _error_text(error)
        return "".join(part if isinstance(part, str) else text for part in self.parts) + "\n"


def _error_text(error: Exception) -> str:
    return f"<{type(error).__name__}: {error}>"


def _format_text(parts: list[str | types.CodeType],
                 expressions: list[str]) -> tuple[str | None, types.CodeType | str | None]:
    """``LogTemplate.format_text`` and ``line_code`` for these parts (``expressions``:
    the text of each code part)."""
    literal = "".join(part.replace("%", "%%") if isinstance(part, str) else "%s"
                      for part in parts) + "\n"
    values = "".join(f"({expression}\n), " for expression in expressions)
    text = f"{literal!r} % ({values})" if expressions else repr(literal)
    try:
        code = compile_expression(text, "<log message>")
    except SyntaxError:
        return None, None
    if not expressions:
        return text, "".join(parts) + "\n"  # type: ignore[arg-type]
    return text, code if len(expressions) == 1 else None


def parse_log_message(text: str) -> LogTemplate:
    """``{expr}`` interpolates an expression; ``{{`` and ``}}`` are literal braces."""
    parts: list[str | types.CodeType] = []
    expressions: list[str] = []
    literal: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char in "{}" and text[index + 1:index + 2] == char:
            literal.append(char)
            index += 2
            continue
        if char == "}":
            raise ExpressionError(f"Invalid log message {text!r}: unmatched '}}'")
        if char == "{":
            end = _matching_brace(text, index)
            expression = text[index + 1:end].strip()
            if not expression:
                raise ExpressionError(f"Invalid log message {text!r}: empty {{}}")
            try:
                code = compile_expression(expression, "<log message>")
            except SyntaxError as error:
                raise ExpressionError(
                    f"Invalid log message expression {expression!r}: {error.msg}"
                ) from None
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(code)
            expressions.append(expression)
            index = end + 1
            continue
        literal.append(char)
        index += 1
    if literal:
        parts.append("".join(literal))
    return LogTemplate(tuple(parts), *_format_text(parts, expressions))


def _matching_brace(text: str, start: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``start``, allowing nested braces such as a
    dict display inside the expression."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    raise ExpressionError(f"Invalid log message {text!r}: unmatched '{{'")
