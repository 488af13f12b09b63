#!/usr/bin/env python3
"""Issue 18 §3: how much of what LoCoMo's annotators observed did the
Archivist extract?

Feeds each conversation of a LoCoMo file the way eval/README.md says (one
mnemo session per LoCoMo session, consecutive turns paired as user/assistant,
"<speaker>: " prefixes, 30 s apart), through `mnemo rpc --stdio` on a fresh
workspace, then reads its events and profile facets from `mnemo export`.
A turn cited as evidence in the conversation's `observation` lists counts as
covered when an event's sentence or a facet's evidence sentence (current or
earlier value) occurs in that turn's text. Prints the share of covered turns,
overall and for the turns fed as user messages (events are only read from
user messages, spec 40), and the counts.

Usage: observation_coverage.py MNEMO_BINARY LOCOMO_JSON
"""
import datetime
import json
import re
import subprocess
import sys
import tempfile


def parse_date(text):
    return datetime.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(
        tzinfo=datetime.timezone.utc)


def norm_id(dia_id):
    m = re.match(r"D:?(\d+):0*(\d+)", dia_id.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


class Rpc:
    def __init__(self, binary, workspace):
        self.proc = subprocess.Popen([binary, "--workspace", workspace, "rpc", "--stdio"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.next_id = 0

    def call(self, method, params):
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id,
                                          "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def turn_text(turn):
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def main():
    binary, path = sys.argv[1], sys.argv[2]
    data = json.load(open(path))
    cited = covered = cited_user = covered_user = events_total = facets_total = 0
    for conv in data:
        c = conv["conversation"]
        texts, user_side = {}, {}
        with tempfile.TemporaryDirectory() as ws:
            rpc = Rpc(binary, ws)
            n = 1
            while f"session_{n}" in c:
                turns = c[f"session_{n}"]
                t0 = parse_date(c[f"session_{n}_date_time"])
                sid = f"{conv['sample_id']}-s{n}"
                for i in range(0, len(turns), 2):
                    user = turns[i]
                    asst = turns[i + 1] if i + 1 < len(turns) else None
                    texts[norm_id(user["dia_id"])] = turn_text(user)
                    user_side[norm_id(user["dia_id"])] = True
                    if asst:
                        texts[norm_id(asst["dia_id"])] = turn_text(asst)
                        user_side[norm_id(asst["dia_id"])] = False
                    ts = (t0 + datetime.timedelta(seconds=30 * i)).isoformat().replace("+00:00", "Z")
                    rpc.call("memory.turn_complete", {
                        "session_id": sid, "user_message": turn_text(user),
                        "assistant_response": turn_text(asst) if asst else "", "timestamp": ts})
                rpc.call("memory.session_end", {"session_id": sid, "sync": True})
                n += 1
            rpc.close()
            # memory.events answers at most 100: the export has them all.
            dump = subprocess.run([binary, "--workspace", ws, "export"], check=True,
                                  capture_output=True, text=True).stdout
        records = [json.loads(line) for line in dump.splitlines() if line.strip()]
        events = [r for r in records if r.get("type") == "event"]
        facets = [r for r in records if r.get("type") == "facet"]
        sentences = [e["text"] for e in events]
        for f in facets:
            sentences.append(f.get("evidence") or f["value"])
            flat = json.loads(f.get("history") or "[]")  # five strings per earlier value
            sentences += [flat[i + 2] or flat[i] for i in range(0, len(flat), 5)]
        sentences = [s for s in sentences if s]
        events_total += len(events)
        facets_total += len(facets)
        ids = set()
        for obs in conv["observation"].values():
            for items in obs.values():
                for _, ev in items:
                    for part in re.split(r"[;, ]+", ev if isinstance(ev, str) else " ".join(ev)):
                        if norm_id(part):
                            ids.add(norm_id(part))
        for dia in ids:
            text = texts.get(dia)
            if text is None:
                continue
            hit = any(s in text for s in sentences)
            cited += 1
            covered += hit
            if user_side.get(dia):
                cited_user += 1
                covered_user += hit
    print(json.dumps({
        "observation_turns": cited, "covered": covered,
        "coverage": round(covered / max(cited, 1), 3),
        "observation_turns_fed_as_user": cited_user, "covered_user": covered_user,
        "coverage_user": round(covered_user / max(cited_user, 1), 3),
        "events": events_total, "facets": facets_total}, indent=1))


if __name__ == "__main__":
    main()
