"""What the eval runners (bench/eval_*.py) share: where the eval sets are, how
a JSONL set is read, and the two ways of driving `mnemo rpc --stdio`.

Python 3 standard library only.
"""

import json
import os
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shared_eval_file(relative):
    """`relative` (e.g. "profile/dev.jsonl") under ../shared/eval: the repository
    sits beside `shared/`, or a worktree one level further down."""
    for base in (os.path.join(REPO, "..", "shared"), os.path.join(REPO, "..", "..", "shared")):
        path = os.path.normpath(os.path.join(base, "eval", relative))
        if os.path.exists(path):
            return path
    return os.path.normpath(os.path.join(REPO, "..", "shared", "eval", relative))


def load_jsonl_cases(path, required):
    """The cases of a JSONL set, each with its `line`; ValueError naming
    file:line when a case lacks one of the `required` fields."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            case = json.loads(line)
            for field in required:
                if field not in case:
                    raise ValueError(f"{path}:{number}: missing \"{field}\"")
            case["line"] = number
            cases.append(case)
    return cases


def rpc_batch(mnemo, workspace, calls):
    """Runs `calls` (method, params) in one `mnemo rpc --stdio`; returns results."""
    lines = []
    for i, (method, params) in enumerate(calls):
        lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}))
    env = dict(os.environ)
    env.pop("MNEMO_WORKSPACE", None)
    proc = subprocess.run([mnemo, "--workspace", workspace, "rpc", "--stdio"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"mnemo rpc --stdio exited {proc.returncode}: {proc.stderr.strip()}")
    answers = {}
    for out in proc.stdout.splitlines():
        if out.strip():
            answer = json.loads(out)
            answers[answer.get("id")] = answer
    results = []
    for i, (method, _) in enumerate(calls):
        answer = answers.get(i)
        if answer is None or "error" in answer:
            raise RuntimeError(f"{method} failed: {answer}")
        results.append(answer["result"])
    return results


class Mnemo:
    """One `mnemo rpc --stdio` process over a workspace of its own, called one
    request at a time; `call` returns the result and the round trip in ms."""

    def __init__(self, binary, workspace, env=None):
        self.proc = subprocess.Popen(
            [binary, "--workspace", workspace, "rpc", "--stdio"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", bufsize=1, env=env)
        self.next_id = 0

    def call(self, method, params):
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params}, ensure_ascii=False)
        start = time.perf_counter()
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        elapsed = (time.perf_counter() - start) * 1000.0
        if not answer:
            raise RuntimeError(f"{method}: mnemo closed its output: {self.proc.stderr.read()}")
        reply = json.loads(answer)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"], elapsed

    def close(self):
        """Ends the process; returns what it wrote on stderr."""
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        return self.proc.stderr.read()
