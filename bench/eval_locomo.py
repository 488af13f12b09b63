#!/usr/bin/env python3
"""Evidence recall@k of mnemo on LoCoMo conversations (issue 18, section 1).

Feeds each conversation into a fresh workspace through the real binary
(`mnemo rpc --stdio`, one JSON-RPC message a line) the way a harness does
(../shared/eval/README.md): each LoCoMo session is one mnemo session, turns
paired into memory.turn_complete (first speaker -> user_message, next ->
assistant_response, a trailing odd turn gets an empty response), each text
prefixed "<speaker>: ", a shared photo appended as " [shares a photo: <caption>]",
timestamps from the session date 30 s apart, then memory.session_end.

Then asks every question of categories 1-4 that has evidence through
  episodic   memory.episodic_search (a turn row maps to its dia_id by session
             and sequence number)
  recall     memory.recall, the memory_recall tool (a turn result counts; any
             other result counts for every evidence turn whose text it contains)
  context    memory.context_build, budget_chars 4000, no session_id (an
             evidence turn counts when its text is quoted in the block)
  entries    memory.search over the conversation imported as entries into a
             workspace of their own (key = dia_id, content
             "<speaker> (<session date>): <text>", category conversation)
and, in the same run, plain SQLite FTS5 BM25 (porter unicode61, the question's
words OR-ed) over the same turn texts and over the same entry texts, one index
per conversation as mnemo has one workspace per conversation.

Metric: evidence recall@k averaged over questions. Latency is the round trip
of one call over stdio measured here (an upper bound of the engine's time).

Python 3 standard library only. Usage:
  python3 bench/eval_locomo.py [--mnemo build/test/apps/mnemo/mnemo]
      [--data ../shared/eval/locomo/dev.json] [--k 10] [--conversations N]
      [--methods episodic,recall,context,entries] [--json-out FILE]
"""

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time

from eval_common import Mnemo

CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
CONTEXT_BUDGET = 4000


def normalise_evidence(items):
    """LoCoMo evidence ids to D<s>:<t> without leading zeros ("D:11:26",
    "D10:05", "D8:6; D9:17" occur)."""
    out = []
    for item in items:
        for part in re.split(r"[;,\s]+", str(item)):
            m = re.match(r"^D:?(\d+):0*(\d+)$", part.strip())
            if m:
                out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return list(dict.fromkeys(out))


def sessions_of(conv):
    c = conv["conversation"]
    numbers = sorted(int(m.group(1)) for k in c for m in [re.match(r"^session_(\d+)$", k)] if m)
    return [(n, c.get(f"session_{n}_date_time", ""), c[f"session_{n}"])
            for n in numbers if c[f"session_{n}"]]


def parse_date(text):
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return dt.datetime.strptime(text.strip(), fmt).replace(tzinfo=dt.timezone.utc)
        except ValueError:
            pass
    raise ValueError(f"unreadable session date {text!r}")


def turn_text(t):
    s = f"{t['speaker']}: {t['text']}"
    if t.get("blip_caption"):
        s += f" [shares a photo: {t['blip_caption']}]"
    return s


def entry_text(t, date):
    return f"{t['speaker']} ({date}): {t['text']}"


def squash(s):
    return " ".join(s.split())


def feed_conversation(m, conv):
    """Feeds every session; returns {(session_id, seq): dia_id}."""
    where = {}
    for n, date, turns in sessions_of(conv):
        sid = f"{conv['sample_id']}-s{n}"
        clock = parse_date(date)
        for i in range(0, len(turns), 2):
            user, reply = turns[i], turns[i + 1] if i + 1 < len(turns) else None
            params = {"session_id": sid, "user_message": turn_text(user),
                      "assistant_response": turn_text(reply) if reply else "",
                      "timestamp": clock.strftime("%Y-%m-%dT%H:%M:%SZ")}
            result, _ = m.call("memory.turn_complete", params)
            rows = result.get("episodic", {})
            where[(sid, rows.get("user", {}).get("seq", i))] = user["dia_id"]
            if reply:
                where[(sid, rows.get("assistant", {}).get("seq", i + 1))] = reply["dia_id"]
            clock += dt.timedelta(seconds=30)
        m.call("memory.session_end", {"session_id": sid, "sync": True})
    return where


def import_entries(m, conv):
    for _, date, turns in sessions_of(conv):
        for t in turns:
            m.call("memory.store", {"key": t["dia_id"], "content": entry_text(t, date),
                                    "category": "conversation"})


def questions_of(conv):
    out = []
    for q in conv["qa"]:
        if q.get("category") not in CATEGORIES:
            continue
        evidence = normalise_evidence(q.get("evidence", []))
        if evidence:
            out.append((q["question"], q["category"], evidence))
    return out


def bm25_top(texts, questions, k):
    """Plain FTS5 BM25 over `texts` ({dia_id: text}): the top-k dia_ids of
    each question, its words OR-ed."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')")
    ids = list(texts)
    db.executemany("INSERT INTO f(rowid, body) VALUES (?, ?)",
                   [(i + 1, texts[d]) for i, d in enumerate(ids)])
    out, lat = [], []
    for question, _, _ in questions:
        words = re.findall(r"\w+", question.lower())
        match = " OR ".join(f'"{w}"' for w in words) or '""'
        start = time.perf_counter()
        rows = db.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY rank LIMIT ?",
                          (match, k)).fetchall()
        lat.append((time.perf_counter() - start) * 1000.0)
        out.append([ids[r[0] - 1] for r in rows])
    return out, lat


class Score:
    def __init__(self):
        self.recall = []  # (category, recall) per question
        self.latency = []
        self.chars = []  # text characters per result

    def add(self, category, evidence, found):
        self.recall.append((category, sum(1 for e in evidence if e in found) / len(evidence)))

    def mean(self, category=None):
        v = [r for c, r in self.recall if category is None or c == category]
        return sum(v) / len(v) if v else 0.0


def percentile(values, p):
    if not values:
        return 0.0
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(-(-p * len(v) // 1)) - 1))]


def evidence_in_text(text, evidence, raw):
    flat = squash(text)
    return {e for e in evidence if raw.get(e) and raw[e] in flat}


def run_conversation(args, conv, scores, tmp):
    questions = questions_of(conv)
    raw = {}  # dia_id -> squashed text as LoCoMo has it (what must be quoted)
    turn_texts, entry_texts = {}, {}
    for _, date, turns in sessions_of(conv):
        for t in turns:
            raw[t["dia_id"]] = squash(t["text"])
            turn_texts[t["dia_id"]] = turn_text(t)
            entry_texts[t["dia_id"]] = entry_text(t, date)

    for name, texts in (("bm25", turn_texts), ("bm25_entries", entry_texts)):
        tops, lat = bm25_top(texts, questions, args.k)
        for (_, cat, ev), top in zip(questions, tops):
            scores[name].add(cat, ev, set(top))
        scores[name].latency += lat

    methods = args.methods
    if {"episodic", "recall", "context"} & methods:
        ws = os.path.join(tmp, conv["sample_id"] + "-turns")
        os.makedirs(ws)
        m = Mnemo(args.mnemo, ws)
        try:
            where = feed_conversation(m, conv)
            for question, cat, ev in questions:
                if "episodic" in methods:
                    r, ms = m.call("memory.episodic_search", {"query": question, "limit": args.k})
                    found = set()
                    for hit in r["results"][:args.k]:
                        d = where.get((hit["session_id"], hit["seq"]))
                        if d:
                            found.add(d)
                        found |= evidence_in_text(" ".join(
                            c.get("content", "") for c in hit.get("context", [])), ev, raw)
                    scores["episodic"].add(cat, ev, found)
                    scores["episodic"].latency.append(ms)
                if "recall" in methods:
                    r, ms = m.call("memory.recall", {"query": question, "max_results": args.k})
                    found = set()
                    for hit in r["results"][:args.k]:
                        text = hit.get("content", "") + "".join(
                            c.get("content", "") for c in hit.get("context", []))
                        scores["recall"].chars.append(len(text))
                        if hit.get("source") == "turn":
                            sid, _, seq = hit.get("key", "").rpartition("#")
                            d = where.get((sid, int(seq))) if seq.isdigit() else None
                            if d:
                                found.add(d)
                        found |= evidence_in_text(text, ev, raw)
                    scores["recall"].add(cat, ev, found)
                    scores["recall"].latency.append(ms)
                if "context" in methods:
                    r, ms = m.call("memory.context_build",
                                   {"query": question, "budget_chars": CONTEXT_BUDGET})
                    scores["context"].add(cat, ev, evidence_in_text(r["text"], ev, raw))
                    scores["context"].chars.append(r.get("used_chars", len(r["text"])))
                    scores["context"].latency.append(ms)
        finally:
            m.close()
    if "entries" in methods:
        ws = os.path.join(tmp, conv["sample_id"] + "-entries")
        os.makedirs(ws)
        m = Mnemo(args.mnemo, ws)
        try:
            import_entries(m, conv)
            for question, cat, ev in questions:
                r, ms = m.call("memory.search", {"query": question, "max_results": args.k})
                scores["entries"].add(cat, ev, {h["key"] for h in r["results"][:args.k]})
                scores["entries"].latency.append(ms)
        finally:
            m.close()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mnemo", default=os.path.join(root, "build/test/apps/mnemo/mnemo"))
    p.add_argument("--data", default=os.path.join(root, "../shared/eval/locomo/dev.json"))
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--conversations", type=int, default=0, help="only the first N (0 = all)")
    p.add_argument("--methods", default="episodic,recall,context,entries")
    p.add_argument("--json-out", default="", help="also write the figures as JSON here")
    p.add_argument("--keep", action="store_true", help="keep the temporary workspaces")
    args = p.parse_args()
    args.methods = set(args.methods.split(","))
    data_path = args.data
    if not os.path.exists(data_path):
        data_path = "/work/shared/eval/locomo/dev.json"
    with open(data_path, encoding="utf-8") as f:
        data = json.load(f)
    if args.conversations:
        data = data[:args.conversations]

    names = ["bm25", "episodic", "recall", "context", "bm25_entries", "entries"]
    scores = {n: Score() for n in names}
    tmp = tempfile.mkdtemp(prefix="mnemo-locomo-")
    start = time.time()
    try:
        for conv in data:
            run_conversation(args, conv, scores, tmp)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    labels = {
        "bm25": "FTS5 BM25 over the turn texts (baseline)",
        "episodic": "memory.episodic_search",
        "recall": "memory_recall (memory.recall)",
        "context": f"memory.context_build ({CONTEXT_BUDGET} chars)",
        "bm25_entries": "FTS5 BM25 over the entry texts (baseline)",
        "entries": "memory_search over entries",
    }
    shown = [n for n in names if scores[n].recall]
    n_questions = len(scores["bm25"].recall)
    print(f"LoCoMo evidence recall@{args.k}: {len(data)} conversations, {n_questions} "
          f"questions (categories 1-4 with evidence), {os.path.basename(data_path)}, "
          f"{time.time() - start:.0f} s")
    header = (f"{'method':44} {'recall':>6} " +
              " ".join(f"{CATEGORY_NAMES[c][:9]:>9}" for c in CATEGORIES) +
              f" {'chars/res':>9} {'p50 ms':>7} {'p95 ms':>7}")
    print(header)
    print("-" * len(header))
    figures = {}
    for n in shown:
        s = scores[n]
        chars = statistics.mean(s.chars) if s.chars else None
        figures[n] = {"recall": s.mean(), "by_category": {CATEGORY_NAMES[c]: s.mean(c)
                                                          for c in CATEGORIES},
                      "chars_per_result": chars, "p50_ms": percentile(s.latency, 0.5),
                      "p95_ms": percentile(s.latency, 0.95)}
        print(f"{labels[n]:44} {s.mean():6.3f} " +
              " ".join(f"{s.mean(c):9.3f}" for c in CATEGORIES) +
              f" {(f'{chars:.0f}' if chars is not None else '-'):>9}"
              f" {percentile(s.latency, 0.5):7.2f} {percentile(s.latency, 0.95):7.2f}")
    print("(chars/res: memory_recall text per result; context_build: characters used per block)")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"k": args.k, "questions": n_questions, "figures": figures}, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
