"""Which files may hold template breakpoints, and what the breakpoint store needs of the
session's template support (templates.py): a module of its own, so that the store can
tell a template file without depending on what patches Django and Jinja."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object

# The extensions of the files a template breakpoint may be set in (VS Code's django-html
# and jinja-html languages, and plain HTML and text templates).
TEMPLATE_SUFFIXES = (".html", ".htm", ".djhtml", ".jinja", ".jinja2", ".j2", ".txt",
                     ".xml")

TEMPLATE_OPTION_NEEDED = ("A breakpoint in a template needs \"django\": true (Django) or "
                          "\"jinja\": true (Jinja) in the launch configuration.")


def is_template_path(path: str) -> bool:
    return path.lower().endswith(TEMPLATE_SUFFIXES)


class TemplateLines(Protocol):
    """What the store asks of the session's templates (templates.Templates)."""

    def accepts(self, canonical: str) -> bool: ...

    def lines(self, path: str) -> tuple[int, ...]: ...
