"""The client against the real binary, over HTTP and over a stdio child."""
from __future__ import annotations

import pytest

from mnemo import Client, ErrorCode, InvalidParams, MethodNotFound, MnemoError, NotFound, TOOLS


def test_store_get_search_round_trip(client: Client) -> None:
    stored = client.store(
        key="user_editor",
        value="The user prefers the Helix editor",
        category="core",
        tags=["tools"],
    )
    assert stored["created"] is True
    assert stored["key"] == "user_editor"

    got = client.get(key="user_editor")
    assert got["content"] == "The user prefers the Helix editor"
    assert got["tags"] == ["tools"]

    hits = client.search(query="which editor", max_results=5)["results"]
    assert [h["key"] for h in hits][:1] == ["user_editor"]

    again = client.store(key="user_editor", value="The user prefers Vim now")
    assert again["created"] is False
    assert client.get(key="user_editor")["content"] == "The user prefers Vim now"
    assert [i["key"] for i in client.list()["items"]] == ["user_editor"]


def test_optional_arguments_left_out_when_none(client: Client) -> None:
    client.store(key="k1", value="first", namespace=None, category=None)
    assert client.get(key="k1", namespace=None)["namespace"] == "global"
    with pytest.raises(NotFound):
        client.get(key="k1", namespace="elsewhere")


def test_missing_key_is_invalid_params_naming_the_field(client: Client) -> None:
    with pytest.raises(InvalidParams) as caught:
        client.call("memory.store", {"value": "no key"})
    e = caught.value
    assert isinstance(e, MnemoError)
    assert e.code == -32602
    assert e.code is ErrorCode.INVALID_PARAMS
    assert e.field == "key"
    assert "key" in e.message
    assert e.request_id


def test_error_classes_follow_the_code(client: Client) -> None:
    with pytest.raises(NotFound) as nf:
        client.get(key="never_stored")
    assert nf.value.code == ErrorCode.NOT_FOUND and nf.value.field is None
    with pytest.raises(MethodNotFound) as mnf:
        client.call("memory.no_such_method")
    assert mnf.value.code == -32601
    with pytest.raises(InvalidParams) as ip:
        client.store(key="k", value="v", category="Core!")
    assert ip.value.field == "category"


def test_tool_methods_run_through_tool_call(client: Client) -> None:
    ok = client.memory_store(key="user_city", value="The user lives in Lisbon")
    assert ok["is_error"] is False
    assert "user_city" in ok["content"]
    assert ok["data"]["key"] == "user_city"
    assert client.get(key="user_city")["content"] == "The user lives in Lisbon"

    found = client.memory_search(query="Lisbon")
    assert found["is_error"] is False
    assert "Lisbon" in found["content"]

    recalled = client.memory_recall(query="where does the user live")
    assert recalled["is_error"] is False and "Lisbon" in recalled["content"]


def test_tool_methods_return_is_error_for_bad_arguments(client: Client) -> None:
    empty_key = client.memory_store(key="", value="v")
    assert empty_key["is_error"] is True
    assert "key" in empty_key["content"]
    bad_category = client.memory_store(key="k", value="v", category="Core!")
    assert bad_category["is_error"] is True and "category" in bad_category["content"]
    missing = client.memory_get(key="never_stored")
    assert missing["is_error"] is True
    malformed = client.tool_call(name="memory_store", arguments="{not json")
    assert malformed["is_error"] is True
    with pytest.raises(NotFound):
        client.get(key="k")  # nothing was stored by the failing calls


def test_tools_lists_the_llm_tools(client: Client) -> None:
    tools = client.tools()
    names = {t["function"]["name"] for t in tools}
    assert names == set(TOOLS)
    assert all(t["type"] == "function" for t in tools)
    ruled = client.tool_call(
        name="tool_rule_put",
        arguments={"tool_name": "email", "rule": "Never email Sarah", "priority": "critical"},
    )
    assert ruled["is_error"] is False
    assert "Never email Sarah" in client.tool_rules_for_prompt()["rendered"]


def test_turn_complete_and_context_build(client: Client) -> None:
    done = client.turn_complete(
        session_id="s1",
        user_message="I use Helix. Never email Sarah.",
        assistant_response="Noted.",
        turn_id="t1",
        sync=True,
    )
    assert [r["rule"] for r in done["new_rules"]] == ["Never email Sarah."]
    replay = client.turn_complete(
        session_id="s1",
        user_message="I use Helix. Never email Sarah.",
        assistant_response="Noted.",
        turn_id="t1",
        sync=True,
    )
    assert replay["replayed"] is True
    built = client.context_build(query="which editor do I use", session_id="s2", preset="minimal")
    assert built["budget_chars"] == 2000
    assert "Helix" in built["text"]
    assert built["used_chars"] <= built["budget_chars"]
