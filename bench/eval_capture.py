#!/usr/bin/env python3
"""Edict capture evaluation (spec 30 "Capture") through the real binary.

Reads a capture set (`../shared/eval/capture/dev.jsonl` by default; README
there): one JSON object a line with `msg`, `tools`, optional `known` and
`expect`. Each case runs in a fresh temporary workspace through
`mnemo rpc --stdio`: every `known` tool is registered with
`memory.tool_register`, then one `memory.turn_complete` carries `msg` as the
user message and one successful call of each tool of `tools`, in order.

The tools a case got are those of the critical `user-edict` rules the turn
created or refreshed (`new_rules` + `refreshed_rules`); they are checked
against what `memory.tool_rules_json` has stored afterwards. Scores: cases
whose set of tools equals `expect` exactly, and precision and recall over
(case, tool) rules. Every miss is printed with what was expected and got.

Usage: bench/eval_capture.py [--mnemo build/test/apps/mnemo/mnemo]
                             [--data ../shared/eval/capture/dev.jsonl] [--json]
Exit status 0 when every case is exact, 1 otherwise, 2 on a usage or RPC error.
Python 3 standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from eval_common import load_jsonl_cases, rpc_batch, shared_eval_file

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def is_edict_rule(rule):
    return rule.get("priority") == "critical" and "user-edict" in rule.get("tags", [])


def run_case(mnemo, case):
    with tempfile.TemporaryDirectory(prefix="mnemo-capture-") as workspace:
        calls = [("memory.tool_register", {"name": name}) for name in case.get("known", [])]
        calls.append(("memory.turn_complete", {
            "session_id": "eval",
            "user_message": case["msg"],
            "assistant_response": "",
            "tool_calls": [{"name": name, "output": "ok", "success": True}
                           for name in case["tools"]],
            "sync": True,
        }))
        calls.append(("memory.tool_rules_json", {}))
        results = rpc_batch(mnemo, workspace, calls)
    turn, stored = results[-2], results[-1]
    captured = [r for r in turn.get("new_rules", []) + turn.get("refreshed_rules", [])
                if is_edict_rule(r)]
    stored_rules = stored if isinstance(stored, list) else json.loads(stored)
    stored_ids = {r["id"] for r in stored_rules if is_edict_rule(r)}
    if {r["id"] for r in captured} != stored_ids:
        raise RuntimeError(f"line {case['line']}: the turn's rules and the stored rules differ")
    return captured


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mnemo", default=os.path.join(REPO, "build", "test", "apps", "mnemo",
                                                        "mnemo"), help="the mnemo binary")
    parser.add_argument("--data", default=shared_eval_file("capture/dev.jsonl"), help="capture set (JSONL)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not os.access(args.mnemo, os.X_OK):
        print(f"eval_capture: {args.mnemo} is not an executable (build mnemo_cli)",
              file=sys.stderr)
        return 2
    try:
        cases = load_jsonl_cases(args.data, ("msg", "tools", "expect"))
    except (OSError, ValueError) as e:
        print(f"eval_capture: {e}", file=sys.stderr)
        return 2

    exact = tp = got_total = expect_total = 0
    misses = []
    for case in cases:
        try:
            rules = run_case(args.mnemo, case)
        except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
            print(f"eval_capture: {e}", file=sys.stderr)
            return 2
        got = {r["tool_name"] for r in rules}
        expect = set(case["expect"])
        tp += len(got & expect)
        got_total += len(got)
        expect_total += len(expect)
        if got == expect:
            exact += 1
        else:
            misses.append({"line": case["line"], "msg": case["msg"], "tools": case["tools"],
                           "known": case.get("known", []), "expect": sorted(expect),
                           "got": [[r["tool_name"], r["rule"]] for r in rules],
                           "false_positive": sorted(got - expect),
                           "false_negative": sorted(expect - got)})

    precision = tp / got_total if got_total else 1.0
    recall = tp / expect_total if expect_total else 1.0
    figures = {"data": args.data, "cases": len(cases), "exact": exact,
               "precision": round(precision, 3), "recall": round(recall, 3),
               "rules_expected": expect_total, "rules_got": got_total, "rules_right": tp,
               "misses": misses}
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=2))
    else:
        for m in misses:
            print(f"MISS line {m['line']}: {m['msg']}")
            print(f"     tools {m['tools']} known {m['known']}")
            print(f"     expect {m['expect']}  got {[g[0] for g in m['got']]}"
                  f"  (false positive {m['false_positive']}, false negative {m['false_negative']})")
            for tool, body in m["got"]:
                print(f"       rule {tool}: {body}")
        print(f"capture {args.data}: {exact}/{len(cases)} exact, precision {precision:.3f} "
              f"({tp}/{got_total}), recall {recall:.3f} ({tp}/{expect_total})")
    return 0 if exact == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
