#!/usr/bin/env python3
"""Paraphrase evaluation: finding a fact asked for in other words, through the real binary.

Reads a paraphrase set (`../shared/eval/paraphrase/dev.json` by default;
README there): `facts` (`key`, `value`; distractors among them) and
`questions` (`question`, `answer_key`). Every fact is stored in one fresh
temporary workspace through `mnemo rpc --stdio` (`memory.store`, category
`core`), then each question is asked through `memory.search` (`max_results`
10, `min_score` 0). Scores: hit@1, hit@3 and hit@10 (the questions whose
answer comes first, among the first 3, among the first 10) and the mean
reciprocal rank; in the same run, plain SQLite FTS5 BM25 over the same facts
(porter unicode61, the question's words OR-ed) as the baseline. Every
question whose answer is not first is printed with what came first.

The binary's environment is passed on: MNEMO_DATA_DIR (or --data-dir) says
where the word-vector file is (docs/search.md).

Usage: bench/eval_paraphrase.py [--mnemo build/test/apps/mnemo/mnemo]
                                [--data ../shared/eval/paraphrase/dev.json]
                                [--data-dir build/data] [--json-out FILE] [--quiet]
Python 3 standard library only.
"""

import argparse
import json
import os
import re
import sqlite3
import sys
import tempfile

from eval_common import Mnemo, shared_eval_file

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def bm25_ranks(facts, questions):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')")
    db.executemany("INSERT INTO f(rowid, body) VALUES (?, ?)",
                   [(i + 1, f["value"]) for i, f in enumerate(facts)])
    out = []
    for q in questions:
        words = re.findall(r"\w+", q["question"].lower())
        match = " OR ".join(f'"{w}"' for w in words) or '""'
        rows = db.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY rank LIMIT 10",
                          (match,)).fetchall()
        out.append([facts[r[0] - 1]["key"] for r in rows])
    return out


def scores(ranked, questions):
    hits = {1: 0, 3: 0, 10: 0}
    rr = 0.0
    for keys, q in zip(ranked, questions):
        if q["answer_key"] in keys:
            pos = keys.index(q["answer_key"]) + 1
            rr += 1.0 / pos
            for k in hits:
                if pos <= k:
                    hits[k] += 1
    n = len(questions)
    return {"hit@1": hits[1] / n, "hit@3": hits[3] / n, "hit@10": hits[10] / n, "mrr": rr / n}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mnemo", default=os.path.join(REPO, "build", "test", "apps", "mnemo", "mnemo"))
    p.add_argument("--data", default=shared_eval_file("paraphrase/dev.json"))
    p.add_argument("--data-dir", default="", help="MNEMO_DATA_DIR for the binary")
    p.add_argument("--json-out", default="", help="also write the figures as JSON here")
    p.add_argument("--quiet", action="store_true", help="no per-question misses")
    args = p.parse_args()
    with open(args.data, encoding="utf-8") as f:
        data = json.load(f)
    facts, questions = data["facts"], data["questions"]
    env = dict(os.environ)
    env.pop("MNEMO_WORKSPACE", None)
    if args.data_dir:
        env["MNEMO_DATA_DIR"] = os.path.abspath(args.data_dir)
    ranked, latency = [], []
    with tempfile.TemporaryDirectory(prefix="mnemo-paraphrase-") as workspace:
        m = Mnemo(args.mnemo, workspace, env)
        for fact in facts:
            m.call("memory.store", {"key": fact["key"], "content": fact["value"],
                                    "category": "core"})
        for q in questions:
            result, ms = m.call("memory.search", {"query": q["question"], "max_results": 10,
                                                  "min_score": 0})
            latency.append(ms)
            items = result["results"] if isinstance(result, dict) else result
            ranked.append([r["key"] for r in items])
        health, _ = m.call("memory.health", {})
        stderr = m.close()
    mine = scores(ranked, questions)
    base = scores(bm25_ranks(facts, questions), questions)
    embedder = health.get("embedder", {}) if isinstance(health, dict) else {}
    value = {f["key"]: f["value"] for f in facts}
    if not args.quiet:
        for keys, q in zip(ranked, questions):
            if not keys or keys[0] != q["answer_key"]:
                pos = keys.index(q["answer_key"]) + 1 if q["answer_key"] in keys else None
                first = keys[0] if keys else "-"
                print(f"miss (rank {pos}): {q['question']}\n  want {q['answer_key']}: "
                      f"{value[q['answer_key']]}\n  got  {first}: {value.get(first, '')}")
    print(f"paraphrase set {args.data}: {len(facts)} facts, {len(questions)} questions")
    print(f"embedder: {embedder.get('signature', '?')}")
    if stderr.strip():
        print("stderr: " + stderr.strip().splitlines()[0])
    print(f"{'':28} hit@1  hit@3  hit@10  MRR")
    for name, s in (("FTS5 BM25 (baseline)", base), ("mnemo memory.search", mine)):
        print(f"{name:28} {s['hit@1']:.3f}  {s['hit@3']:.3f}  {s['hit@10']:.3f}   {s['mrr']:.3f}")
    latency.sort()
    print(f"memory.search p50 {latency[len(latency) // 2]:.2f} ms (round trip)")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"bm25": base, "mnemo": mine, "embedder": embedder}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
