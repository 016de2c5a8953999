"""RFC 6570 URI templates, levels 1-3 and the explode modifier: enough for resource
templates (``demo://notes/{id}``, ``file:///{+path}``, ``search{?q,lang}``)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, unquote

_EXPRESSION = re.compile(r"\{([^}]*)\}")
_OPERATORS = {  # operator: (first, separator, named, if-empty, allow reserved)
    "": ("", ",", False, "", False),
    "+": ("", ",", False, "", True),
    "#": ("#", ",", False, "", True),
    ".": (".", ".", False, "", False),
    "/": ("/", "/", False, "", False),
    ";": (";", ";", True, "", False),
    "?": ("?", "&", True, "=", False),
    "&": ("&", "&", True, "=", False),
}


def variables(template: str) -> list[str]:
    """Variable names in order of appearance, without duplicates."""
    names: list[str] = []
    for expression in _EXPRESSION.findall(template):
        body = expression[1:] if expression[:1] in _OPERATORS and expression[:1] else expression
        for spec in body.split(","):
            name = spec.split(":")[0].rstrip("*").strip()
            if name and name not in names:
                names.append(name)
    return names


def expand(template: str, values: dict[str, Any]) -> str:
    """Expand ``template`` with ``values`` (missing or empty values are left out)."""

    def one(match: re.Match[str]) -> str:
        expression = match.group(1)
        op = expression[:1] if expression[:1] in _OPERATORS and expression[:1] else ""
        first, sep, named, if_empty, reserved = _OPERATORS[op]
        safe = ":/?#[]@!$&'()*+,;=" if reserved else ""
        parts: list[str] = []
        for spec in expression[len(op) :].split(","):
            explode = spec.endswith("*")
            name, _, prefix = spec.rstrip("*").partition(":")
            value = values.get(name.strip())
            if value is None or value == "" or value == []:
                continue
            if isinstance(value, list):
                items = [quote(str(v), safe=safe) for v in value]
                if named and explode:
                    parts.extend(f"{name}={item}" for item in items)
                else:
                    joined = (sep if explode else ",").join(items)
                    parts.append(f"{name}={joined}" if named else joined)
                continue
            text = str(value)
            if prefix.isdigit():
                text = text[: int(prefix)]
            encoded = quote(text, safe=safe)
            parts.append(f"{name}={encoded}" if named else encoded)
            if named and not encoded:
                parts[-1] = f"{name}{if_empty}"
        return first + sep.join(parts) if parts else ""

    return _EXPRESSION.sub(one, template)


def match(template: str, uri: str) -> dict[str, str] | None:
    """The values that expand ``template`` into ``uri``, for a template of plain
    ``{name}`` expressions (None: it does not match, or it uses operators)."""
    pattern, at = "", 0
    names: list[str] = []
    for found in _EXPRESSION.finditer(template):
        name = found.group(1).strip()
        if not name.isidentifier() or name in names:
            return None
        pattern += re.escape(template[at : found.start()]) + f"(?P<{name}>[^/?#]*)"
        names.append(name)
        at = found.end()
    pattern += re.escape(template[at:])
    matched = re.fullmatch(pattern, uri)
    if matched is None:
        return None
    return {name: unquote(matched.group(name)) for name in names}
