"""Reading ``shell=True`` command lines (POSIX ``/bin/sh -c``), just enough to find a
Python program in them and rewrite it.

Only a *simple command* is rewritten: optional ``NAME=value`` assignments, then words
built from plain characters, quotes and backslashes. Anything the shell would
interpret (pipes, lists, redirections, expansions, globs, comments) makes the line
"complex": it then runs as written, and the child is reported as a candidate.
Because every word of a simple command is literal, quoting the rewritten words again
with ``shlex.quote`` gives the shell exactly the same words.
"""

from __future__ import annotations

from ..common.patterns import LazyPattern
from ..common.records import Record

_OPERATORS = set(";&|<>()")
_GLOBS = set("*?[")
_ASSIGNMENT = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Inside double quotes a backslash only escapes these.
_DOUBLE_QUOTE_ESCAPES = set('$`"\\\n')


class ComplexShellCommand(ValueError):
    """The command line uses shell features that are not rewritten; the message names one."""


class SimpleCommand(Record):
    assignments: list[str]
    words: list[str]


def split_simple_command(line: str) -> SimpleCommand:
    """Split a simple command into its literal words; raise ComplexShellCommand otherwise."""
    words: list[str] = []
    current: list[str] = []
    in_word = False
    index = 0
    length = len(line)

    def complex_(what: str):
        raise ComplexShellCommand(f"the shell command line uses {what}")

    while index < length:
        char = line[index]
        if char in " \t":
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
            index += 1
            continue
        if char == "\n":
            complex_("several lines")
        if char == "#" and not in_word:
            complex_("a comment")
        if char in _OPERATORS:
            complex_(f"the operator {char!r} (pipes, lists or redirections)")
        if char in "$`":
            complex_("expansions ($ or `)")
        if char in _GLOBS:
            complex_("wildcards")
        if char == "~" and not in_word:
            complex_("~ expansion")
        in_word = True
        if char == "'":
            end = line.find("'", index + 1)
            if end < 0:
                raise ComplexShellCommand("the shell command line has an unclosed quote")
            current.append(line[index + 1:end])
            index = end + 1
            continue
        if char == '"':
            index += 1
            while True:
                if index >= length:
                    raise ComplexShellCommand("the shell command line has an unclosed quote")
                inner = line[index]
                if inner == '"':
                    index += 1
                    break
                if inner in "$`":
                    complex_("expansions ($ or `)")
                escaped = line[index + 1] if index + 1 < length else ""
                if inner == "\\" and escaped and escaped in _DOUBLE_QUOTE_ESCAPES:
                    if escaped != "\n":
                        current.append(escaped)
                    index += 2
                    continue
                current.append(inner)
                index += 1
            continue
        if char == "\\":
            if index + 1 >= length:
                raise ComplexShellCommand("the shell command line ends with a backslash")
            if line[index + 1] != "\n":
                current.append(line[index + 1])
            index += 2
            continue
        current.append(char)
        index += 1
    if in_word:
        words.append("".join(current))
    assignments: list[str] = []
    while words and _ASSIGNMENT.match(words[0]):
        assignments.append(words.pop(0))
    if words and words[0] == "exec":
        # `exec python …` replaces the shell; the program is still the first word after it.
        assignments.append(words.pop(0))
    return SimpleCommand(assignments, words)


def join_command(assignments: list[str], words: list[str]) -> str:
    """The shell text of a simple command made of literal words."""
    import shlex  # Only where a child is started through a shell: it imports re.

    parts = []
    for item in assignments:
        if item == "exec":
            parts.append(item)
        else:
            name, _, value = item.partition("=")
            parts.append(f"{name}={shlex.quote(value)}")
    parts.extend(shlex.quote(word) for word in words)
    return " ".join(parts)
