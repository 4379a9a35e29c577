"""What Python's file tokenizer does with a script's bytes before ``python PATH`` runs
it, which ``compile`` (another tokenizer) does otherwise: the syntax errors it gives for
bytes that are not UTF-8 and for null bytes (3.11+), and the text it keeps of a script
with null bytes (before 3.11). The launcher's program (program.py) says them as python
would."""

from __future__ import annotations

import codecs
import sys

from ..common.patterns import LazyPattern


def as_python_reads(source: bytes, path: str) -> bytes:
    """The text python would compile of the script ``path`` whose bytes are ``source``;
    raises the SyntaxError python would give for it instead, where it gives one that
    ``compile`` would word otherwise."""
    if _REFUSES_NULL_BYTES:
        null_byte = null_byte_error(source, path)
        if null_byte is not None:
            raise null_byte
    else:
        source = without_null_bytes(source)
    not_utf8 = non_utf8_error(source, path)
    if not_utf8 is not None:
        raise not_utf8
    return source


# An encoding declaration (PEP 263), as the tokenizer finds it on one of the first lines.
_CODING_COOKIE = LazyPattern(rb"^[ \t\f]*#.*?coding[:=]")
_CODING_NAME = LazyPattern(rb"[ \t]*([-\w.]+)")


def _line_of(source: bytes, offset: int) -> tuple[int, bytes, int]:
    """The 1-based number, the text (without its end of line) and the start offset of
    the line of ``source`` that holds byte ``offset``."""
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    return source.count(b"\n", 0, offset) + 1, source[start:end if end >= 0 else None], start


def non_utf8_error(source: bytes, path: str) -> SyntaxError | None:
    """The SyntaxError the interpreter's file tokenizer gives for a script whose bytes
    are not UTF-8 where UTF-8 is expected, or None when ``compile`` (which reads bytes
    with another tokenizer) already says what ``python PATH`` says. Without an encoding
    declaration every version names the first bad byte (``compile`` reports a "(unicode
    error)" instead, and accepts such bytes in comments); 3.14's file tokenizer also
    reports a declared UTF-8 file (a cookie or a BOM) as a "(unicode error)" of the bad
    line, where its ``compile`` names the byte."""
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as error:
        offset = error.start
    else:
        return None
    declared = source.startswith(codecs.BOM_UTF8) or any(
        _CODING_COOKIE.match(line) for line in source.split(b"\n", 2)[:2])
    line, text, start = _line_of(source, offset)
    if declared:
        if sys.version_info < (3, 14) or not _declares_utf8(source):
            return None
        if line == 1 and source.startswith(codecs.BOM_UTF8):
            text = text[len(codecs.BOM_UTF8):]
        try:
            text.decode("utf-8")
        except UnicodeDecodeError as bad_line:
            return SyntaxError(f"(unicode error) {bad_line}",
                               (path, line, 0, text.decode("utf-8", "replace") + "\n", line, -1))
        return None
    pep = ("https://peps.python.org/pep-0263/" if sys.version_info >= (3, 11)
           else "https://python.org/dev/peps/pep-0263/")
    byte = f"\\x{source[offset]:02x}"

    def message(line: int) -> str:
        return (f"Non-UTF-8 code starting with '{byte}' in file {path} on line {line}, "
                f"but no encoding declared; see {pep} for details")

    if sys.version_info < (3, 14):
        if sys.version_info[:2] == (3, 10):
            line += 1  # 3.10's tokenizer counts one line too many here.
        return SyntaxError(message(line))
    # 3.14's tokenizer names the line (the first two, read together while it looks for a
    # coding cookie, count as line 1) and shows it with a caret under the byte.
    if line == 2:
        line = 1
    column = len(text[:offset - start].decode("utf-8", "replace")) + 1
    return SyntaxError(message(line),
                       (path, line, column, text.decode("utf-8", "replace"), line, column))


def _declares_utf8(source: bytes) -> bool:
    """Whether a source that declares its encoding (a BOM or a coding cookie) declares
    UTF-8, under any of the names Python knows it by."""
    if source.startswith(codecs.BOM_UTF8):
        return True
    for line in source.split(b"\n", 2)[:2]:
        cookie = _CODING_COOKIE.match(line)
        if cookie is not None:
            name = _CODING_NAME.match(line, cookie.end())
            try:
                return name is not None and codecs.lookup(name.group(1).decode()).name == "utf-8"
            except LookupError:
                return False
    return False


# Syntax errors that compile() finds only at the end of the text it is given: where the
# file's text goes on past a null byte, the file tokenizer reaches that byte first.
_FOUND_AT_THE_END = ("was never closed", "unterminated triple-quoted")


def null_byte_error(source: bytes, path: str) -> SyntaxError | None:
    """From 3.11, the SyntaxError the file tokenizer gives for a script with a null byte
    (``compile`` words it otherwise): on the null byte's line, showing what comes before
    it, unless a syntax error in the lines before comes first."""
    offset = source.find(b"\0")
    if offset < 0:
        return None
    line, text, start = _line_of(source, offset)
    try:
        compile(source[:start], path, "exec", dont_inherit=True)
    except SyntaxError as error:
        if (error.lineno or 0) < line and not any(
                words in str(error.msg) for words in _FOUND_AT_THE_END):
            return error
    except ValueError:
        pass
    shown = text[:offset - start].decode("utf-8", "replace")
    return SyntaxError("source code cannot contain null bytes", (path, line, 0, shown, line, 0))


def without_null_bytes(source: bytes) -> bytes:
    """Before 3.11, the text the file tokenizer reads from a script with null bytes: a
    line holding one loses the rest of it, its end of line included (the next line
    joins what is left), and a line that starts with one ends the file."""
    if b"\0" not in source:
        return source
    kept = []
    for line in source.splitlines(keepends=True):
        cut = line.find(b"\0")
        if cut < 0:
            kept.append(line)
        elif cut == 0 and (not kept or kept[-1].endswith((b"\n", b"\r"))):
            break
        else:
            kept.append(line[:cut])
    return b"".join(kept)


# From 3.11 the file tokenizer refuses null bytes; before, it drops what follows them.
_REFUSES_NULL_BYTES = sys.version_info >= (3, 11)
