"""Breakpoints in Django and Jinja templates (the launch configuration's ``django`` and
``jinja``): a real program renders real templates, and the debuggee stops at the
template's line with the template's context as the frame's locals, on every tracer.
Django and Jinja2 come from PyPI (requirements-test.txt); a Python they do not install
on skips, saying so."""

from __future__ import annotations

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


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_an_exception_while_rendering_stops_in_the_template(launch, write, backend,
                                                            framework):
    template = "line one\n{% include 'missing.html' %}\n"
    debuggee, page, _ = start(launch, write, backend, framework, [], template=template)
    debuggee.request("setExceptionBreakpoints", {"filters": ["userUnhandled"]})
    debuggee.request("configurationDone")
    stop = debuggee.stopped("exception")
    frame = debuggee.top_frame(stop["threadId"])
    assert (frame["source"]["path"], frame["line"]) == (str(page), 2)
    debuggee.request("continue", {"threadId": stop["threadId"]})
    debuggee.finish()
    assert "failed: Template" in debuggee.stdout()  # TemplateDoesNotExist, TemplateNotFound


def test_a_program_that_renders_nothing_imports_neither(launch, write, backend):
    program = write("plain.py", "import sys\nprint(sorted(m for m in ('django', 'jinja2') "
                                "if m in sys.modules))\n")
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program), "django": True, "jinja": True})
    debuggee.request("configurationDone")
    debuggee.finish()
    assert "[]" in debuggee.stdout()
