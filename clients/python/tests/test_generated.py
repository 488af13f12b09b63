"""The generated methods match the method table: not stale, one client method per RPC
method and per LLM tool, with the schema's parameter names."""
from __future__ import annotations

import inspect
import json
import subprocess
import sys
from typing import Any, Dict, List

import pytest

import mnemo
from mnemo import METHODS, READ_METHODS, TOOLS, Client
from conftest import SOURCE_DIR


@pytest.fixture(scope="module")
def schema(binary: str) -> Dict[str, Any]:
    """The running binary's schema (`mnemo docs schema`)."""
    out = subprocess.run([binary, "docs", "schema"], check=True, capture_output=True).stdout
    schema: Dict[str, Any] = json.loads(out)
    return schema


def test_generated_file_is_not_stale() -> None:
    here = SOURCE_DIR / "clients/python"
    result = subprocess.run(
        [
            sys.executable,
            str(here / "generate.py"),
            "--check",
            "--schema",
            str(SOURCE_DIR / "docs/schema.json"),
            "--out",
            str(here / "mnemo/_methods.py"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_installed_methods_are_the_checkouts() -> None:
    installed = inspect.getsource(sys.modules["mnemo._methods"])
    assert installed == (SOURCE_DIR / "clients/python/mnemo/_methods.py").read_text()


def test_generator_detects_a_stale_file(tmp_path: Any) -> None:
    here = SOURCE_DIR / "clients/python"
    stale = tmp_path / "_methods.py"
    stale.write_text((here / "mnemo/_methods.py").read_text().replace("def store(", "def stored("))
    result = subprocess.run(
        [
            sys.executable,
            str(here / "generate.py"),
            "--check",
            "--schema",
            str(SOURCE_DIR / "docs/schema.json"),
            "--out",
            str(stale),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "stale" in result.stderr


def keyword_params(fn: Any) -> Dict[str, inspect.Parameter]:
    return {name: p for name, p in inspect.signature(fn).parameters.items() if name != "self"}


def test_every_schema_method_has_a_client_method(schema: Dict[str, Any]) -> None:
    assert schema["version"] == mnemo.SCHEMA_VERSION
    names = [m["name"] for m in schema["methods"]]
    assert len(names) > 40
    assert sorted(METHODS) == sorted(names)
    for m in schema["methods"]:
        attr = m["name"].removeprefix("memory.")
        fn = getattr(Client, attr, None)
        assert callable(fn), f"Client has no method {attr} for {m['name']}"
        params = keyword_params(fn)
        assert set(params) == set(m["params"].get("properties", {})), m["name"]
        for name, p in params.items():
            assert p.kind is inspect.Parameter.KEYWORD_ONLY, (m["name"], name)
            required = name in m["params"].get("required", [])
            assert (p.default is inspect.Parameter.empty) == required, (m["name"], name)
        assert fn.__doc__ and m["description"].split(" ")[0] in fn.__doc__


def test_every_llm_tool_has_a_client_method(schema: Dict[str, Any]) -> None:
    tools = {m["tool"]: m for m in schema["methods"] if "llm" in m["tool_for"]}
    assert {"memory_store", "memory_search", "memory_recall"} <= set(tools)
    assert sorted(TOOLS) == sorted(tools)
    for tool, m in tools.items():
        fn = getattr(Client, tool)
        assert set(keyword_params(fn)) == set(m["params"]["properties"]), tool
        if TOOLS[tool][1] is None:  # named like its RPC method, which it is
            assert tool == m["name"].removeprefix("memory.")
        else:
            assert "memory.tool_call" in (fn.__doc__ or "")
    mcp_only = {m["tool"] for m in schema["methods"] if m["tool_for"] == ["mcp"]}
    assert mcp_only and not mcp_only & set(TOOLS)  # memory.tool_call cannot run them


def test_read_methods_name_existing_methods_only(schema: Dict[str, Any]) -> None:
    names = {m["name"] for m in schema["methods"]}
    assert READ_METHODS <= names
    if any("read_only" in m for m in schema["methods"]):  # the method table says which
        assert READ_METHODS == {m["name"] for m in schema["methods"] if m["read_only"]}
    writes: List[str] = [
        "memory.store",
        "memory.forget",
        "memory.turn_complete",
        "memory.tool_call",
        "memory.doc_put",
        "memory.session_forget",
        "memory.context_append",
    ]
    assert not READ_METHODS.intersection(writes)
    assert mnemo.is_read("memory.tool_call", {"name": "memory_search"})
    assert not mnemo.is_read("memory.tool_call", {"name": "memory_store"})
    assert not mnemo.is_read("memory.tool_call", {"name": "no_such_tool"})


class Recorder:
    """A transport that records requests and answers {}."""

    def __init__(self) -> None:
        self.requests: List[Any] = []

    def request(self, method: str, params: Any, *, idempotent: bool) -> Any:
        self.requests.append((method, params, idempotent))
        return {}

    def close(self) -> None:
        pass


def test_arguments_become_params_and_none_is_left_out() -> None:
    recorder = Recorder()
    c = Client(recorder)
    c.store(key="k", value="v", category=None, tags=["a"])
    c.search(query="q", max_results=3)
    c.memory_search(query="q", namespace=None)
    c.memory_store(key="k", value="v")
    c.stats()
    assert recorder.requests == [
        ("memory.store", {"key": "k", "value": "v", "tags": ["a"]}, False),
        ("memory.search", {"query": "q", "max_results": 3}, True),
        ("memory.tool_call", {"name": "memory_search", "arguments": {"query": "q"}}, True),
        (
            "memory.tool_call",
            {"name": "memory_store", "arguments": {"key": "k", "value": "v"}},
            False,
        ),
        ("memory.stats", {}, True),
    ]


def test_generator_takes_reads_from_the_schemas_read_only(tmp_path: Any) -> None:
    schema = json.loads((SOURCE_DIR / "docs/schema.json").read_text())
    for m in schema["methods"]:
        m["read_only"] = m["name"] in ("memory.get", "memory.doc_list")
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    out = tmp_path / "_methods.py"
    subprocess.run(
        [
            sys.executable,
            str(SOURCE_DIR / "clients/python/generate.py"),
            "--schema",
            str(tmp_path / "schema.json"),
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    namespace: Dict[str, Any] = {}
    exec(compile(out.read_text(), str(out), "exec"), namespace)
    assert namespace["READ_METHODS"] == {"memory.get", "memory.doc_list"}
