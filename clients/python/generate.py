#!/usr/bin/env python3
"""Writes mnemo/_methods.py from the method table's JSON Schema (docs/schema.json).

    python3 clients/python/generate.py            # rewrite mnemo/_methods.py
    python3 clients/python/generate.py --check    # exit 1 when it is stale
    python3 clients/python/generate.py --schema FILE   # another schema (e.g. `mnemo docs schema`)

Every JSON-RPC method becomes a keyword-only method named after it without the
`memory.` prefix (required parameters without a default, optional ones `= None` and
left out of the request when None); every LLM tool (`tool_for` holds "llm") becomes a
method under its tool name that runs it through memory.tool_call. A tool whose name is
already an RPC method's (tool_rule_put, episodic_search, update_memory_md: the same
parameters) is that RPC method; the tool form stays reachable as
`tool_call(name=..., arguments=...)`. Results whose schema lists properties become
TypedDicts. READ_METHODS (the methods HTTP may send again) are the schema's `read_only`
ones. Standard library only.
"""
from __future__ import annotations

import argparse
import json
import keyword
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
DEFAULT_SCHEMA = HERE.parent.parent / "docs" / "schema.json"
DEFAULT_OUT = HERE / "mnemo" / "_methods.py"
PREFIX = "memory."
# A parameter or field: (schema name, Python type, required, description).
Param = Tuple[str, str, bool, str]
# Names of the hand-written Client API that a generated method must not shadow.
RESERVED = {"call", "close", "tools", "http", "stdio", "transport"}


def pascal(name: str) -> str:
    return "".join(
        part[:1].upper() + part[1:] for part in name.replace(".", "_").split("_") if part
    )


def singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name + "_item"


def py_name(name: str) -> str:
    """A parameter's Python name: the schema's, with `_` appended to a keyword."""
    return name + "_" if keyword.iskeyword(name) else name


def method_attr(method: str) -> str:
    if not method.startswith(PREFIX):
        raise SystemExit(f"generate: method {method!r} does not start with {PREFIX!r}")
    return method[len(PREFIX) :].replace(".", "_")


def docstring(text: str, indent: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').rstrip()
    if text.endswith('"'):
        text += " "
    lines = text.split("\n")
    if len(lines) == 1 and len(indent) + len(lines[0]) + 6 <= 100:
        return f'{indent}"""{lines[0]}"""\n'
    body = "\n".join((indent + line) if line else "" for line in lines)
    return f'{indent}"""{body.lstrip()}\n{indent}"""\n'


def wrap(text: str, indent: str, first: str = "", more: str = "    ") -> List[str]:
    return textwrap.wrap(
        text,
        width=92,
        initial_indent=indent + first,
        subsequent_indent=indent + more,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent + first.rstrip()]


class Generator:
    def __init__(self, schema: Dict[str, Any]) -> None:
        self.schema = schema
        self.typed_dicts: List[str] = []
        self.names: set[str] = set()
        self.public_types: List[str] = []

    def unique(self, name: str) -> str:
        candidate, n = name, 2
        while candidate in self.names:
            candidate, n = f"{name}{n}", n + 1
        self.names.add(candidate)
        return candidate

    # A Python type for a JSON Schema; `name` names a TypedDict made for an object
    # with properties (`item_name` for an array's items, default name + "Item"),
    # `output` picks List (results) or Sequence (inputs).
    def type_of(self, s: Any, name: str, output: bool, item_name: Optional[str] = None) -> str:
        if not isinstance(s, dict) or not s:
            return "Any"
        if "const" in s:
            return f"Literal[{json.dumps(s['const'])}]"
        if "enum" in s and all(isinstance(v, str) for v in s["enum"]):
            return "Literal[" + ", ".join(json.dumps(v) for v in s["enum"]) + "]"
        for key in ("oneOf", "anyOf"):
            if key in s:
                objects = [v for v in s[key] if isinstance(v, dict) and v.get("properties")]
                variants = [
                    self.type_of(v, name if len(objects) == 1 else f"{name}{i + 1}", output)
                    for i, v in enumerate(s[key])
                ]
                return union(variants)
        t = s.get("type")
        if isinstance(t, list):
            return union([self.type_of({**s, "type": one}, name, output) for one in t])
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            item = self.type_of(s.get("items"), item_name or name + "Item", output)
            return f"List[{item}]" if output else f"Sequence[{item}]"
        if t == "object" or "properties" in s:
            if s.get("properties"):
                return self.typed_dict(s, name, output)
            return "Dict[str, Any]"
        return "Any"

    def typed_dict(self, s: Dict[str, Any], name: str, output: bool) -> str:
        name = self.unique(name)
        props: Dict[str, Any] = s["properties"]
        required = set(s.get("required", []))
        fields: List[Param] = []
        for prop in sorted(props):
            sub = props[prop]
            desc = sub.get("description", "") if isinstance(sub, dict) else ""
            fields.append((prop, self.child_type(sub, name, prop, output), prop in required, desc))
        self.typed_dicts.append(self.render_typed_dict(name, s.get("description", ""), fields))
        self.public_types.append(name)
        return name

    def child_type(self, s: Any, parent: str, prop: str, output: bool) -> str:
        """The type of property `prop` of `parent`; an array's items are named by the
        property's singular ("results" -> SearchResultItem, "sections" -> ...Section)."""
        item = pascal(singular(prop))
        return self.type_of(
            s, parent + pascal(prop), output, parent + ("Item" if item == "Result" else item)
        )

    @staticmethod
    def render_typed_dict(name: str, desc: str, fields: List[Param]) -> str:
        identifiers = all(f[0].isidentifier() and not keyword.iskeyword(f[0]) for f in fields)
        req = [f for f in fields if f[2]]
        opt = [f for f in fields if not f[2]]
        out: List[str] = []
        if not identifiers:
            entries = ", ".join(f"{json.dumps(f[0])}: {f[1]}" for f in fields)
            total = "False" if opt else "True"
            return f'{name} = TypedDict("{name}", {{{entries}}}, total={total})\n'

        def body(group: List[Param]) -> List[str]:
            lines: List[str] = []
            for prop, typ, _, d in group:
                if d:
                    lines.extend(wrap(d, "    ", "# ", "# "))
                lines.append(f"    {prop}: {typ}")
            return lines

        base = "TypedDict"
        if req and opt:
            base = f"_{name}Required"
            out.append(f"class {base}(TypedDict):")
            out.extend(body(req))
            out.append("")
            out.append("")
        out.append(f"class {name}({base}{', total=False' if opt else ''}):")
        if desc:
            out.append(docstring(desc, "    ").rstrip("\n"))
        out.extend(body(opt if req and opt else fields))
        return "\n".join(out) + "\n"

    def params(self, m: Dict[str, Any], attr: str) -> List[Param]:
        p = m["params"]
        props: Dict[str, Any] = p.get("properties", {})
        required = p.get("required", [])
        out = []
        for prop in list(required) + sorted(k for k in props if k not in required):
            sub = props[prop]
            out.append(
                (
                    prop,
                    self.child_type(sub, pascal(attr), prop, False),
                    prop in required,
                    sub.get("description", ""),
                )
            )
        return out

    @staticmethod
    def render(name: str, params: List[Param], result: str, doc: str, call: str) -> str:
        """One method: `call` is the return expression, over `params` (the request's dict)."""
        args = [
            f"{py_name(p)}: {t}" if req else f"{py_name(p)}: {optional(t)} = None"
            for p, t, req, _ in params
        ]
        head = f"    def {name}(self{', *, ' + ', '.join(args) if args else ''}) -> {result}:"
        if len(head) > 100:
            head = (
                f"    def {name}(\n        self,\n        *,\n"
                + "".join(f"        {a},\n" for a in args)
                + f"    ) -> {result}:"
            )
        lines = [head, docstring(doc, "        ").rstrip("\n")]
        if params:
            entries = [f'"{p}": {py_name(p)}' for p, _, _, _ in params]
            one = "        params = {" + ", ".join(entries) + "}"
            if len(one) > 100:
                one = (
                    "        params = {\n"
                    + "".join(f"            {e},\n" for e in entries)
                    + "        }"
                )
            lines.append(one)
        ret = f"        return {call}"
        if len(ret) > 100 and call.startswith("cast("):
            ret = f"        return cast(\n            {call[5:-1]}\n        )"
        lines.append(ret)
        return "\n".join(lines) + "\n"

    @staticmethod
    def arg_docs(description: str, params: List[Param], extra: str) -> str:
        # The first line follows the docstring's opening quotes.
        lines = textwrap.wrap(
            description,
            width=92,
            initial_indent="   ",
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines[0] = lines[0][3:]
        if extra:
            lines += [""] + textwrap.wrap(
                extra, width=92, break_long_words=False, break_on_hyphens=False
            )
        if params:
            lines += ["", "Args:"]
            for prop, _, req, desc in params:
                text = desc + ("" if req else " Left out when None.")
                lines += wrap(text.strip(), "    ", f"{py_name(prop)}: ")
        return "\n".join(lines)

    def generate(self) -> str:
        methods = self.schema["methods"]
        attrs = {m["name"]: method_attr(m["name"]) for m in methods}
        clash = RESERVED.intersection(attrs.values())
        if clash:
            raise SystemExit(f"generate: methods {sorted(clash)} would shadow the Client's own API")
        by_attr = {attrs[m["name"]]: m for m in methods}
        if "memory.tool_call" not in attrs:
            raise SystemExit("generate: the schema has no memory.tool_call")
        results = {
            m["name"]: self.type_of(m["result"], pascal(attrs[m["name"]]) + "Result", True)
            for m in methods
        }
        tool_result = results["memory.tool_call"]

        defs: List[str] = []
        tools: Dict[str, Tuple[str, Optional[str]]] = {}
        for m in methods:
            attr = attrs[m["name"]]
            params = self.params(m, attr)
            result = results[m["name"]]
            call = f'self.call("{m["name"]}", {"_params(params)" if params else "{}"})'
            if result != "Any":
                call = f"cast({result}, {call})"
            defs.append(
                self.render(attr, params, result, self.arg_docs(m["description"], params, ""), call)
            )
        for m in methods:
            if "llm" not in m.get("tool_for", []) or not m.get("tool"):
                continue
            tool = m["tool"]
            if tool in RESERVED or tool in ("_tool",):
                raise SystemExit(f"generate: tool {tool!r} would shadow the Client's own API")
            if tool in by_attr:
                if by_attr[tool]["params"] != m["params"]:
                    raise SystemExit(
                        f"generate: tool {tool!r} is named like an RPC method with other params"
                    )
                tools[tool] = (m["name"], None)
                continue
            params = self.params(m, tool)
            hidden = (
                " Not offered to models when memory.acl_enabled is true."
                if m.get("tool_hidden_under_acl")
                else ""
            )
            extra = (
                f"The model-facing tool {tool} ({m['name']} through memory.tool_call): returns "
                "the text for the model (content), the structured result (data) and is_error; a "
                "failing tool (bad arguments, nothing found) is a result with is_error true, not "
                f"an exception.{hidden}"
            )
            call = f'self._tool("{tool}", {"params" if params else "{}"})'
            defs.append(
                self.render(
                    tool, params, tool_result, self.arg_docs(m["description"], params, extra), call
                )
            )
            tools[tool] = (m["name"], tool)

        out = [HEADER.format(version=self.schema.get("version", "?"))]
        out.append(f"SCHEMA_VERSION = {json.dumps(self.schema.get('version', ''))}\n")
        out.append("# JSON-RPC method -> Client method.")
        out.append("METHODS: Dict[str, str] = {")
        out.extend(f'    "{name}": "{attr}",' for name, attr in attrs.items())
        out.append("}\n")
        out.append("# LLM tool -> (the JSON-RPC method it runs, its Client method; None where the")
        out.append(
            "# tool is named like an RPC method: run it with tool_call(name=..., arguments=...))."
        )
        out.append("TOOLS: Dict[str, Tuple[str, Optional[str]]] = {")
        out.extend(
            f'    "{t}": ("{mm}", {json.dumps(a) if a else "None"}),'
            for t, (mm, a) in tools.items()
        )
        out.append("}\n")
        out.append(
            "# Methods that change nothing but statistics (the schema's read_only): sent again"
        )
        out.append("# over HTTP when no answer came; every other method is sent once.")
        out.append("READ_METHODS: FrozenSet[str] = frozenset({")
        out.extend(f'    "{name}",' for name in read_methods(methods))
        out.append("})\n\n")
        public = ["SCHEMA_VERSION", "METHODS", "TOOLS", "READ_METHODS", "Methods"]
        public += self.public_types
        out.append("__all__ = [")
        out.extend(f'    "{name}",' for name in public)
        out.append("]\n\n")
        out.append(PARAMS_HELPER)
        out.append("\n\n".join(self.typed_dicts))
        out.append(CLASS_HEAD.format(tool_result=tool_result))
        out.append("\n".join(defs))
        return "\n".join(out).rstrip() + "\n"


def read_methods(methods: List[Dict[str, Any]]) -> List[str]:
    """The read-only methods in table order (the schema's `read_only`, MethodSpec::read_only)."""
    if not all(isinstance(m.get("read_only"), bool) for m in methods):
        raise SystemExit("generate: every method of the schema needs a boolean read_only")
    return [m["name"] for m in methods if m["read_only"]]


def optional(t: str) -> str:
    return t if t == "Any" or t.startswith("Optional[") else f"Optional[{t}]"


def union(types: List[str]) -> str:
    seen: List[str] = []
    for t in types:
        if t not in seen:
            seen.append(t)
    if len(seen) == 1:
        return seen[0]
    if "None" in seen and len(seen) == 2:
        return f"Optional[{next(t for t in seen if t != 'None')}]"
    return "Union[" + ", ".join(seen) + "]"


HEADER = '''\
# Generated by clients/python/generate.py from docs/schema.json (schema version {version}).
# Do not edit: change the method table, run `mnemo docs schema > docs/schema.json`, then
# `python3 clients/python/generate.py`. A test fails when this file is stale.
"""Typed methods of the mnemo JSON-RPC API (one per method, one per LLM tool)."""
from __future__ import annotations

from typing import (Any, Dict, FrozenSet, List, Literal, Mapping, Optional, Sequence, Tuple,
                    TypedDict, Union, cast)
'''

PARAMS_HELPER = '''\
def _params(values: Mapping[str, Any]) -> Dict[str, Any]:
    """The request's params: every argument that is not None."""
    return {k: v for k, v in values.items() if v is not None}

'''

CLASS_HEAD = '''
class Methods:
    """Every method of the method table. Subclasses provide `call`."""

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        raise NotImplementedError

    def _tool(self, name: str, arguments: Mapping[str, Any]) -> {tool_result}:
        params = {{"name": name, "arguments": _params(arguments)}}
        return cast({tool_result}, self.call("memory.tool_call", params))
'''


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--schema",
        type=Path,
        default=DEFAULT_SCHEMA,
        help="the schema JSON (default docs/schema.json)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="the file to write (default mnemo/_methods.py)",
    )
    ap.add_argument(
        "--check", action="store_true", help="exit 1 when --out differs from what would be written"
    )
    args = ap.parse_args(argv)
    text = Generator(json.loads(args.schema.read_text(encoding="utf-8"))).generate()
    current = args.out.read_text(encoding="utf-8") if args.out.exists() else None
    if args.check:
        if current != text:
            print(f"{args.out} is stale: run python3 clients/python/generate.py", file=sys.stderr)
            return 1
        return 0
    if current != text:
        args.out.write_text(text, encoding="utf-8")
        print(f"generate: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
