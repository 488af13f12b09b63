#!/usr/bin/env python3
"""An agent loop with mnemo as its memory.

Before the model: memory.context_build (what is relevant to this message: memories,
profile, recaps and earlier turns, within a character budget) and
memory.tool_rules_for_prompt (the pinned rules) go into the system prompt. After the
model: memory.turn_complete reports the turn, so mnemo stores it (later turns and other
sessions find it) and turns edicts like "never email Sarah" into rules.

    python3 agent_loop.py --binary path/to/mnemo --workspace /tmp/demo   # a stdio child
    python3 agent_loop.py --url http://127.0.0.1:8765 [--token TOKEN]   # a running daemon

The model is a stand-in (fake_model); put your LLM call there.
"""
from __future__ import annotations

import argparse
import sys
import uuid

from mnemo import Client

SYSTEM = "You are a helpful assistant."


def fake_model(system_prompt: str, user_message: str) -> str:
    """Stands in for an LLM: answers the editor question from the memory block it was given."""
    if "editor" in user_message.lower() and "?" in user_message:
        if "Helix" in system_prompt:
            return "You use Helix (I remembered it)."
        return "I don't know which editor you use."
    return "Noted."


def agent_turn(client: Client, session_id: str, user_message: str) -> str:
    memory = client.context_build(query=user_message, session_id=session_id, preset="minimal")
    rules = client.tool_rules_for_prompt()
    system_prompt = "\n\n".join(
        p for p in (SYSTEM, rules.get("rendered", ""), memory.get("text", "")) if p
    )
    sections = ", ".join(f"{s['name']} ({s['chars']} chars)" for s in memory.get("sections", []))
    print(f"  (memory: {sections or 'nothing yet'})")

    answer = fake_model(system_prompt, user_message)

    # sync=True waits for the turn's background work, so the next turn sees it at once;
    # an interactive agent leaves it out. turn_id makes a retried report store nothing twice.
    done = client.turn_complete(
        session_id=session_id,
        turn_id=str(uuid.uuid4()),
        user_message=user_message,
        assistant_response=answer,
        sync=True,
    )
    for rule in done.get("new_rules", []):
        print(f"  (new {rule['priority']} rule: {rule['rule']})")
    return answer


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", help="a mnemo serve daemon (else a mnemo rpc --stdio child)")
    ap.add_argument("--token", help="its bearer token")
    ap.add_argument(
        "--binary", default="mnemo", help="the mnemo binary for stdio (default: on PATH)"
    )
    ap.add_argument("--workspace", help="the workspace for stdio (default: mnemo's)")
    args = ap.parse_args()
    client = (
        Client.http(args.url, token=args.token)
        if args.url
        else Client.stdio(args.binary, workspace=args.workspace)
    )
    with client:
        conversation = [
            ("monday", "I use the Helix editor for everything. Never email Sarah."),
            ("tuesday", "Which editor do I use?"),
        ]
        for session_id, message in conversation:
            print(f"[{session_id}] user: {message}")
            print(f"[{session_id}] assistant: {agent_turn(client, session_id, message)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
