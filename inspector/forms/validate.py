"""Validate arguments against a tool's JSON Schema with jsonschema, offline.

The dialect comes from `$schema` (draft-04 to 2020-12); without one it is 2020-12, as
MCP 2025-11-25 says. Remote `$ref`s are never fetched: the registry's retrieve refuses.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema import exceptions as js_exc
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012, specification_with

from inspector.forms.formats import FORMAT_EXAMPLES, format_checker

Path = tuple[str | int, ...]
_MAX_MESSAGE = 300


@dataclass(frozen=True)
class ValidationIssue:
    """One problem, at a path of property names and array indexes from the root."""

    path: Path
    message: str


def _refuse(uri: str) -> Resource[Any]:
    """Never fetch a schema over the network (or from disk)."""
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


def _shorten(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def validator_class(schema: Any) -> Any:
    """The jsonschema validator class for the schema's dialect (2020-12 by default)."""
    with warnings.catch_warnings():
        # An unknown `$schema` URI warns and falls back to the default: that is what we want.
        warnings.simplefilter("ignore")
        if isinstance(schema, dict) and isinstance(schema.get("$schema"), str):
            return jsonschema.validators.validator_for(
                schema, default=jsonschema.Draft202012Validator
            )
        return jsonschema.Draft202012Validator


def make_validator(schema: Any) -> Any:
    """A validator for `schema` with an offline registry; raises SchemaError if invalid."""
    cls = validator_class(schema)
    cls.check_schema(schema)
    spec = DRAFT202012
    if isinstance(schema, dict) and isinstance(schema.get("$schema"), str):
        spec = specification_with(schema["$schema"], default=DRAFT202012)
    registry: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]
    registry = registry.with_resource("urn:mcp-inspect:root", spec.create_resource(schema))
    return cls(schema, registry=registry, format_checker=format_checker(cls.FORMAT_CHECKER))


def _by_variant(error: Any) -> dict[Any, list[Any]]:
    """A failed oneOf/anyOf's errors, by the index of the variant each is about."""
    by_variant: dict[Any, list[Any]] = {}
    for sub in error.context:
        key = sub.relative_schema_path[0] if sub.relative_schema_path else None
        by_variant.setdefault(key, []).append(sub)
    return by_variant


def _variant_errors(error: Any) -> list[Any]:
    """For a failed oneOf/anyOf, the errors of the variant the instance most likely meant.

    A variant whose discriminator (`const`/`enum`) or root `type` does not match was not
    meant; among the rest, the one with the fewest errors, then the deepest, wins.
    """
    depth = len(error.absolute_path)

    def meant(errors: list[Any]) -> bool:
        return not any(
            e.validator in ("const", "enum")
            or (e.validator == "type" and len(e.absolute_path) == depth)
            for e in errors
        )

    candidates = [errs for errs in _by_variant(error).values() if meant(errs)]
    if not candidates:
        return []
    return min(candidates, key=lambda errs: (len(errs), -max(len(e.absolute_path) for e in errs)))


def _closest(error: Any) -> tuple[Any, list[Any]]:
    """When no variant of a failed oneOf/anyOf was meant: the one that came closest (its
    root type matched, then the fewest errors, then the first) and its errors."""
    depth = len(error.absolute_path)

    def distance(item: tuple[Any, list[Any]]) -> tuple[bool, int, int]:
        index, errors = item
        wrong_type = any(e.validator == "type" and len(e.absolute_path) == depth for e in errors)
        return wrong_type, len(errors), index if isinstance(index, int) else 0

    return min(_by_variant(error).items(), key=distance)


def _option(variants: Any, index: Any) -> str:
    """A variant named for a message: its title, else its number and what it is."""
    sub = variants[index] if isinstance(variants, list) and isinstance(index, int) else None
    number = f"option {index + 1}" if isinstance(index, int) else "an option"
    if not isinstance(sub, dict):
        return number
    if isinstance(sub.get("title"), str):
        return f"{_shown(sub['title'])} ({number})"
    what: list[str] = []
    if isinstance(sub.get("$ref"), str):
        what.append(sub["$ref"].rsplit("/", 1)[-1])
    if "type" in sub:
        names = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
        what.append(" or ".join(_type_name(n) for n in names))
    if "const" in sub:
        what.append(f"= {_shown(sub['const'], 20)}")
    if isinstance(sub.get("format"), str):
        what.append(f"format {sub['format']}")
    return f"{number} ({', '.join(what)})" if what else number


def _no_option(error: Any, validator: Any) -> str:
    """Why a value matched no variant of a oneOf/anyOf (the closest one and its errors),
    or more than one of a oneOf's."""
    variants = error.validator_value
    count = len(variants) if isinstance(variants, list) else 0
    if not error.context:  # oneOf: more than one matched
        matched = [
            _option(variants, i)
            for i, sub in enumerate(variants if isinstance(variants, list) else [])
            if is_valid(validator, sub, error.instance)
        ]
        which = f": {' and '.join(matched)}" if matched else ""
        return f"matches more than one of its {count} options (oneOf takes exactly one){which}"
    index, errors = _closest(error)
    base = len(error.absolute_path)
    reasons = []
    for sub in errors:
        for issue in _issues(sub, validator):
            where = "/".join(map(str, issue.path[base:]))
            reasons.append(f"{where}: {issue.message}" if where else issue.message)
    more = f"; and {len(reasons) - 3} more" if len(reasons) > 3 else ""
    return (
        f"matches none of its {count} options ({error.validator}); the closest, "
        f"{_option(variants, index)}: {'; '.join(reasons[:3])}{more}"
    )


def _shown(value: Any, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _type_name(name: Any) -> str:
    word = str(name)
    if word == "null":
        return word
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def _plain(error: Any) -> str:
    """The message a form shows under a field (whose name is already on screen): what is
    wanted, then what was given; jsonschema's own wording for the rarer keywords."""
    rule, limit, got = error.validator, error.validator_value, error.instance
    numeric = isinstance(limit, int | float) and not isinstance(limit, bool)
    if rule in ("maximum", "minimum") and numeric:
        # draft-04 spells an exclusive bound as a boolean beside the limit
        exclusive = error.schema.get(f"exclusive{rule.capitalize()}") is True
        bound = {
            ("maximum", False): "at most",
            ("maximum", True): "less than",
            ("minimum", False): "at least",
            ("minimum", True): "more than",
        }[rule, exclusive]
        return f"must be {bound} {limit} (got {_shown(got)})"
    if rule in ("exclusiveMaximum", "exclusiveMinimum") and numeric:
        bound = "less than" if rule == "exclusiveMaximum" else "more than"
        return f"must be {bound} {limit} (got {_shown(got)})"
    if rule == "minLength" and isinstance(got, str):
        if not got and limit == 1:
            return "must not be empty"
        return f"too short: at least {limit} character{'s' * (limit != 1)} (got {len(got)})"
    if rule == "maxLength" and isinstance(got, str):
        return f"too long: at most {limit} character{'s' * (limit != 1)} (got {len(got)})"
    if rule == "format":
        example = FORMAT_EXAMPLES.get(str(limit))
        shape = f", like {example}" if example else ""
        return f"not a valid {limit}{shape} (got {_shown(got)})"
    if rule == "type":
        names = limit if isinstance(limit, list) else [limit]
        wanted = " or ".join(_type_name(n) for n in names)
        return f"must be {wanted} (got {_shown(got)})"
    if rule == "pattern":
        return f"must match the pattern {limit} (got {_shown(got)})"
    if rule == "enum" and isinstance(limit, list):
        options = ", ".join(_shown(o, 20) for o in limit[:8]) + (", …" if len(limit) > 8 else "")
        return f"must be one of {options} (got {_shown(got)})"
    if rule == "const":
        return f"must be {_shown(limit)} (got {_shown(got)})"
    if rule == "additionalProperties" and limit is False and isinstance(got, dict):
        declared = error.schema.get("properties") or {}
        patterns = error.schema.get("patternProperties") or {}
        extra = [k for k in got if k not in declared and not _matches_any(patterns, k)]
        if extra:
            listed = ", ".join(_shown(k, 30) for k in extra[:5]) + (", …" if len(extra) > 5 else "")
            plural = "properties" if len(extra) > 1 else "property"
            return f"unexpected {plural} {listed} (additionalProperties: false)"
    return _as_json(str(error.message), got, limit)


def _matches_any(patterns: Any, key: str) -> bool:
    try:
        return any(re.search(pattern, key) for pattern in patterns)
    except (re.error, TypeError):
        return False


def _as_json(message: str, *values: Any) -> str:
    """jsonschema's message with the Python reprs of the values it names as JSON
    (`{"a": null}`, not `{'a': None}`), cut short: the user wrote JSON."""
    for value in values:
        try:
            shown = _shown(value, 60)
        except (TypeError, ValueError):
            continue
        if repr(value) != shown:
            message = message.replace(repr(value), shown)
    return message


def _issues(error: Any, validator: Any) -> list[ValidationIssue]:
    """Turn a jsonschema error into issues at the deepest paths that explain it."""
    path: Path = tuple(error.absolute_path)
    if error.validator in ("oneOf", "anyOf"):
        # "not valid under any of the given schemas" says little; the errors of the
        # variant that was meant name the fields; failing that, the closest one is said
        inner = _variant_errors(error) if error.context else []
        if inner:
            return [issue for sub in inner for issue in _issues(sub, validator)]
        return [ValidationIssue(path, _shorten(_no_option(error, validator)))]
    if error.validator == "required" and isinstance(error.instance, dict):
        for name in error.validator_value or []:
            if name not in error.instance and repr(name) in error.message:
                return [ValidationIssue((*path, name), "required")]
    return [ValidationIssue(path, _shorten(_plain(error)))]


def validate(schema: Any, instance: Any, validator: Any = None) -> list[ValidationIssue]:
    """All problems of `instance` against `schema`; a bad schema is one issue, not a crash.

    `validator` is `make_validator(schema)` made beforehand: a form checking as the user
    types makes it once (it costs milliseconds; checking with it, microseconds).
    """
    if validator is None:
        try:
            validator = make_validator(schema)
        except js_exc.SchemaError as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
            return [
                ValidationIssue((), _shorten(f"invalid input schema at {where}: {exc.message}"))
            ]
        except Exception as exc:  # an unknown dialect or a broken registry: report, don't crash
            return [ValidationIssue((), _shorten(f"invalid input schema: {exc}"))]
    issues: list[ValidationIssue] = []
    try:
        for error in validator.iter_errors(instance):
            issues.extend(_issues(error, validator))
    except Unresolvable as exc:
        issues.append(
            ValidationIssue(
                (),
                _shorten(f"cannot resolve $ref {exc.ref!r} (remote references are never fetched)"),
            )
        )
    except Exception as exc:  # e.g. a `pattern` that is not a valid regex
        issues.append(ValidationIssue((), _shorten(f"schema could not be applied: {exc}")))
    issues.sort(key=lambda i: [str(p) for p in i.path])
    return issues


def is_valid(validator: Any, subschema: Any, instance: Any) -> bool:
    """Does `instance` match `subschema` (resolved within the validator's root schema)?"""
    if validator is None:
        return False
    try:
        return bool(validator.evolve(schema=subschema).is_valid(instance))
    except Exception:
        return False
