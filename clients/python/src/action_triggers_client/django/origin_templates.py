"""The origin's payload templates are Django templates; the service's substitute ``{{ path }}``
values only. What a payload uses that the service cannot render is named per field, with what to
do instead, so the import never sends a template tag or filter as literal text."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

EXPRESSION = re.compile(r"\{\{(.*?)\}\}")
DOTTED_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_0-9][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class TemplateProblem:
    path: str
    found: str
    why: str


def strings_of(value: Any, path: str = "payload") -> Iterator[tuple[str, str]]:
    """Every string in the payload (keys included) with its path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key} (the key)", str(key)
            yield from strings_of(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from strings_of(item, f"{path}[{i}]")


def template_problems(payload: Any) -> list[TemplateProblem]:
    problems = []
    for path, text in strings_of(payload):
        problem = _problem(text)
        if problem:
            problems.append(TemplateProblem(path.replace(" (the key)", ""), *problem))
    return problems


def _problem(text: str) -> tuple[str, str] | None:
    tag = re.search(r"\{%.*?%\}|\{#.*?#\}", text)
    if tag:
        return tag.group(0), ("a Django template tag: the service's templates substitute values only. Send the values the "
                              "tag decides on (e.g. {{ instance.status }}) and decide at the receiver, or add a model "
                              "field or property that holds the result")
    for m in EXPRESSION.finditer(text):
        inner = m.group(1).strip()
        if "|" in inner:
            return m.group(0), ("a Django template filter: the service sends the value itself as JSON (dates and times "
                                f"ISO 8601); write {{{{ {inner.split('|')[0].strip()} }}}} and format it at the receiver")
        if not DOTTED_PATH.match(inner):
            return m.group(0), "not a dotted path: the service's templates take {{ instance.field }} or {{ instance.relation.field }}"
    rest = EXPRESSION.sub("", text)
    if "{{" in rest or "}}" in rest:
        found = "{{" if "{{" in rest else "}}"
        return found, ("unbalanced braces: the origin rendered them as text; close the expression ({{ instance.id }}) "
                       "or remove the braces")
    return None
