"""Renders templates/page.jinja with Jinja: the template breakpoint of the Debug Test
scenario, started as a debugpy configuration with "jinja": true."""
import os

import jinja2

here = os.path.dirname(os.path.abspath(__file__))
environment = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(here, "templates")))
print(environment.get_template("page.jinja").render(title="Fruit", items=["apple", "pear"]))
