"""The HTML pages' templates: jinja2 with autoescape on, so every text from a run, a config
or a space file is escaped unless it is our own SVG (passed as markupsafe.Markup), and
StrictUndefined, so a variable a page lacks fails loudly instead of printing nothing.

Templates are package data: reports/templates holds the shared layout (base.html.j2, its
CSS and macros) and the run and comparison pages; another package (sim.tune) keeps its page
in its own templates folder and extends the layout from here.
"""

from __future__ import annotations

import time
from functools import cache

import jinja2


@cache
def environment(package: str = "reports") -> jinja2.Environment:
    """The templates of package, falling back to the shared layout in reports."""
    loaders = [jinja2.PackageLoader(package, "templates")]
    if package != "reports":
        loaders.append(jinja2.PackageLoader("reports", "templates"))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["count"] = lambda n: f"{n:,}"  # thousands separators: 12,345
    return env


def render(template: str, package: str = "reports", **context: object) -> str:
    """The page template renders from context; the footer's time stamp is added here."""
    written = time.strftime("%Y-%m-%d %H:%M")
    return environment(package).get_template(template).render(written=written, **context)
