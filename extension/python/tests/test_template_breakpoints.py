"""Breakpoints in Django and Jinja templates (the launch configuration's ``django`` and
``jinja``): a real program renders real templates, and the debuggee stops at the
template's line with the template's context as the frame's locals, on every tracer.
Django and Jinja2 come from PyPI (requirements-test.txt); a Python they do not install
on skips, saying so."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dapperdbg.breakpoints.template_files import TEMPLATE_OPTION_NEEDED

django = pytest.importorskip("django", reason="Django is not installed for this Python")

DJANGO_TEMPLATE = """\
<h1>Hello {{ name }}</h1>
<ul>
{% for item in items %}
  <li>{{ item }}</li>
{% endfor %}
</ul>
"""

DJANGO_PROGRAM = """\
import os, sys
import django
from django.conf import settings
here = os.path.dirname(os.path.abspath(__file__))
settings.configure(TEMPLATES=[{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [here], "OPTIONS": {"debug": True}}])
django.setup()
from django.template.loader import render_to_string
name = sys.argv[1] if len(sys.argv) > 1 else "page.html"
try:
    print(render_to_string(name, {"name": "world", "items": ["a", "b"]}).replace("\\n", "|"))
except Exception as error:
    print("failed:", type(error).__name__)
"""

JINJA_PROGRAM = """\
import os, sys
import jinja2
here = os.path.dirname(os.path.abspath(__file__))
environment = jinja2.Environment(loader=jinja2.FileSystemLoader(here))
name = sys.argv[1] if len(sys.argv) > 1 else "page.html"
try:
    page = environment.get_template(name).render(name="world", items=["a", "b"])
    print(page.replace("\\n", "|"))
except Exception as error:
    print("failed:", type(error).__name__)
"""

FRAMEWORKS = {
    "django": (DJANGO_PROGRAM, DJANGO_TEMPLATE, "page.html"),
    # The same template: its lines mean the same in Jinja.
    "jinja": (JINJA_PROGRAM, DJANGO_TEMPLATE, "page.html"),
}


def start(launch, write, backend, framework, lines, template=None, argv=()):
    program_text, template_text, template_name = FRAMEWORKS[framework]
    if framework == "jinja":
        pytest.importorskip("jinja2", reason="Jinja2 is not installed for this Python")
    program = write("render.py", program_text)
    page = write(template_name, template if template is not None else template_text)
    debuggee = launch("--program", program, *argv, tracer=backend)
    debuggee.configure({"program": str(program), framework: True})
    breakpoints = debuggee.set_breakpoints(page, lines)
    return debuggee, page, breakpoints


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_a_template_breakpoint_stops_with_the_context(launch, write, backend, framework):
    debuggee, page, breakpoints = start(launch, write, backend, framework, [1, 4])
    assert [bp["verified"] for bp in breakpoints] == [True, True], breakpoints
    assert [bp["line"] for bp in breakpoints] == [1, 4]
    debuggee.request("configurationDone")
    seen = []
    for _ in range(3):  # line 1 once, line 4 once per item
        stop = debuggee.stopped()
        frame = debuggee.top_frame(stop["threadId"])
        assert frame["source"]["path"] == str(page)
        assert frame["name"] == page.name
        variables = debuggee.locals_of(frame["id"])
        assert variables["name"]["value"] == "'world'"
        seen.append((frame["line"], variables.get("item", {}).get("value")))
        debuggee.request("continue", {"threadId": stop["threadId"]})
    assert seen == [(1, None), (4, "'a'"), (4, "'b'")]
    debuggee.finish()
    assert "Hello world" in debuggee.stdout()


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_a_condition_and_an_evaluation_in_the_template(launch, write, backend, framework):
    debuggee, page, _ = start(launch, write, backend, framework, [])
    debuggee.set_breakpoints(page, [4], condition="item == 'b'")
    debuggee.request("configurationDone")
    stop = debuggee.stopped()
    frame = debuggee.top_frame(stop["threadId"])
    assert frame["line"] == 4
    answer = debuggee.request("evaluate", {"expression": "name + item", "frameId": frame["id"],
                                           "context": "repl"})
    assert answer["result"] == "'worldb'"
    debuggee.request("continue", {"threadId": stop["threadId"]})
    debuggee.finish()


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_without_the_option_a_template_breakpoint_is_refused(launch, write, backend,
                                                             framework):
    program_text, template_text, name = FRAMEWORKS[framework]
    program = write("render.py", program_text)
    page = write(name, template_text)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    [breakpoint] = debuggee.set_breakpoints(page, [1])
    assert breakpoint["verified"] is False
    assert breakpoint["message"] == TEMPLATE_OPTION_NEEDED
    debuggee.request("configurationDone")
    debuggee.finish()


def _line_of(text: str, fragment: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if fragment in line)


# An exception raised while rendering (a missing include) stops in the template at the
# include's line. Each case: the filter, the framework, and every stop as (file, line).
# With "raised", Django's template backend raises a copy of the exception in the
# program's call (django/template/backends/django.py), a new exception that stops
# there too; Jinja's own rewriting raises the same exception again.
EXCEPTION_CASES = {
    ("userUnhandled", "django"): [("page.html", 2)],
    ("userUnhandled", "jinja"): [("page.html", 2)],
    ("raised", "django"): [("page.html", 2),
                           ("render.py", _line_of(DJANGO_PROGRAM, "render_to_string(name"))],
    ("raised", "jinja"): [("page.html", 2)],
}


@pytest.mark.parametrize(("exception_filter", "framework"), list(EXCEPTION_CASES))
def test_an_exception_while_rendering_stops_in_the_template(launch, write, backend,
                                                            exception_filter, framework):
    template = "line one\n{% include 'missing.html' %}\n"
    debuggee, page, _ = start(launch, write, backend, framework, [], template=template)
    debuggee.request("setExceptionBreakpoints", {"filters": [exception_filter]})
    debuggee.request("configurationDone")
    stops = []
    for _ in EXCEPTION_CASES[exception_filter, framework]:
        stop = debuggee.stopped("exception")
        frame = debuggee.top_frame(stop["threadId"])
        stops.append((frame["source"]["path"], frame["line"]))
        debuggee.request("continue", {"threadId": stop["threadId"]})
    debuggee.finish()
    assert stops == [(str(page.parent / name), line)
                     for name, line in EXCEPTION_CASES[exception_filter, framework]]
    assert "failed: Template" in debuggee.stdout()  # TemplateDoesNotExist, TemplateNotFound


# Jinja macros: the lines of a macro's body render when the macro is called, from the
# same template or from one that imports it. Each case: the templates, the breakpoint
# (file, line) and the stops expected there, as (line, the macro's argument).
MACRO_CASES = {
    "defined in the template": (
        {"page.html": """\
            {% macro entry(item) -%}
              <li>{{ item }}</li>
            {%- endmacro %}
            <h1>Hello {{ name }}</h1>
            {% for item in items %}{{ entry(item) }}
            {% endfor %}
            """},
        ("page.html", 2),
        [(2, "'a'"), (2, "'b'")],
    ),
    "imported from another template": (
        {"macros.html": """\
            {% macro entry(item, mark) -%}
              <li>{{ mark }}
              {{ item }}</li>
            {%- endmacro %}
            """,
         "page.html": """\
            {% from 'macros.html' import entry %}
            <h1>Hello {{ name }}</h1>
            {% for item in items %}{{ entry(item, '*') }}{% endfor %}
            """},
        ("macros.html", 3),
        [(3, "'a'"), (3, "'b'")],
    ),
}


@pytest.mark.parametrize("case", list(MACRO_CASES))
def test_a_breakpoint_in_a_jinja_macro_stops_when_it_is_called(launch, write, backend, case):
    pytest.importorskip("jinja2", reason="Jinja2 is not installed for this Python")
    templates, (file, line), expected = MACRO_CASES[case]
    program = write("render.py", JINJA_PROGRAM)
    paths = {name: write(name, text) for name, text in templates.items()}
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program), "jinja": True})
    [breakpoint] = debuggee.set_breakpoints(paths[file], [line])
    assert breakpoint["verified"] is True, breakpoint
    debuggee.request("configurationDone")
    seen = []
    for _ in expected:
        stop = debuggee.stopped()
        frame = debuggee.top_frame(stop["threadId"])
        assert frame["source"]["path"] == str(paths[file])
        variables = debuggee.locals_of(frame["id"])
        seen.append((frame["line"], variables["item"]["value"]))
        debuggee.request("continue", {"threadId": stop["threadId"]})
    assert seen == expected
    debuggee.finish()
    assert "<li>" in debuggee.stdout() and "Hello world" in debuggee.stdout()


JINJA_CACHED_PROGRAM = JINJA_PROGRAM.replace(
    "jinja2.Environment(loader=jinja2.FileSystemLoader(here))",
    "jinja2.Environment(loader=jinja2.FileSystemLoader(here), bytecode_cache="
    "jinja2.FileSystemBytecodeCache(os.path.join(here, 'cache')))")


@pytest.mark.parametrize("warm", [True, False], ids=["cached", "not cached yet"])
def test_a_jinja_bytecode_cache_is_bypassed_while_debugging(launch, write, backend, warm):
    """A template whose code a bytecode cache holds (from a run without the debugger)
    stops at its breakpoints, compiled with the checks; the cache keeps the plain code,
    which a later run without the debugger loads."""
    pytest.importorskip("jinja2", reason="Jinja2 is not installed for this Python")
    assert JINJA_CACHED_PROGRAM != JINJA_PROGRAM
    program = write("render.py", JINJA_CACHED_PROGRAM)
    page = write("page.html", DJANGO_TEMPLATE)
    cache = program.parent / "cache"
    cache.mkdir()

    def plain_run() -> str:
        return subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                              check=True, timeout=60).stdout

    if warm:
        assert "Hello world" in plain_run()
    cached = {path.name: path.read_bytes() for path in cache.iterdir()}
    assert len(cached) == (1 if warm else 0)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program), "jinja": True})
    debuggee.set_breakpoints(page, [4])
    debuggee.request("configurationDone")
    seen = []
    for _ in range(2):
        stop = debuggee.stopped()
        frame = debuggee.top_frame(stop["threadId"])
        seen.append((frame["line"], debuggee.locals_of(frame["id"])["item"]["value"]))
        debuggee.request("continue", {"threadId": stop["threadId"]})
    assert seen == [(4, "'a'"), (4, "'b'")]
    debuggee.finish()
    assert {path.name: path.read_bytes() for path in cache.iterdir()} == cached
    assert "Hello world" in debuggee.stdout()
    assert plain_run() == debuggee.stdout()


def test_a_program_that_renders_nothing_imports_neither(launch, write, backend):
    program = write("plain.py", "import sys\nprint(sorted(m for m in ('django', 'jinja2') "
                                "if m in sys.modules))\n")
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program), "django": True, "jinja": True})
    debuggee.request("configurationDone")
    debuggee.finish()
    assert "[]" in debuggee.stdout()
