"""Checking a form's value before a send, and again on each edit once issues are shown.

The form checks with the validator it built once (`check_form`); the peer is
`validate(schema, value)`, which builds a validator (and checks the schema) per call,
as every ctrl+s did before (twice per press). Forms: the demo's create_user, and a
generated one with many fields.

Usage: python bench/form_check.py [--fields 300] [--rounds 50]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector.demo.schemas import CREATE_USER
from inspector.forms.nodes import FieldNode
from inspector.forms.schema import build_form, check_form, validate


def per_call(fn: Callable[[], Any], rounds: int) -> float:
    fn()  # warm up
    started = time.perf_counter()
    for _ in range(rounds):
        fn()
    return (time.perf_counter() - started) / rounds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fields", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    wide = {
        "type": "object",
        "properties": {f"f{i}": {"type": "string", "minLength": 1} for i in range(args.fields)},
        "required": [f"f{i}" for i in range(0, args.fields, 2)],
    }
    for name, schema in (("create_user", CREATE_USER), (f"{args.fields} fields", wide)):
        form = build_form(schema)

        def checked(form: FieldNode = form, schema: dict[str, Any] = schema) -> object:
            return check_form(form, schema)

        def validated(form: FieldNode = form, schema: dict[str, Any] = schema) -> object:
            return validate(schema, form.value())

        form_check = per_call(checked, args.rounds)
        peer = per_call(validated, max(3, args.rounds // 10))
        print(
            f"{name:>12}: check_form {form_check * 1000:8.2f} ms, validate() per call "
            f"{peer * 1000:8.2f} ms, ratio {peer / form_check:6.1f}x"
        )


if __name__ == "__main__":
    main()
