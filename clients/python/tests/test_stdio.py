"""The stdio transport: the child's life ends with the client's, failures name why."""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mnemo
from mnemo import Client, TransportError


def gone(pid: int, wait: float = 5.0) -> bool:
    """Whether process `pid` has exited (absent, or a zombie nobody reaped yet)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.02)
    return False


def test_with_block_closes_the_child(binary: str, tmp_path: Path) -> None:
    with Client.stdio(binary, workspace=tmp_path) as c:
        assert isinstance(c.transport, mnemo.StdioTransport)
        process = c.transport.process
        assert c.stats()["entries"] == 0
        assert process.poll() is None
    assert process.returncode == 0  # EOF on stdin: a clean exit
    assert c.transport.closed
    c.close()  # idempotent
    with pytest.raises(TransportError, match="closed"):
        c.stats()


def test_garbage_collection_closes_the_child(binary: str, tmp_path: Path) -> None:
    c = Client.stdio(binary, workspace=tmp_path)
    c.stats()
    process = c.transport.process  # type: ignore[attr-defined]
    del c
    gc.collect()
    assert process.returncode is not None


def test_interpreter_exit_closes_the_child(binary: str, tmp_path: Path) -> None:
    script = (
        "import sys, mnemo\n"
        "c = mnemo.Client.stdio(sys.argv[1], workspace=sys.argv[2])\n"
        "c.stats()\n"
        "print(c.transport.pid, flush=True)\n"
    )  # exits without close()
    env = dict(os.environ, PYTHONPATH=str(Path(mnemo.__file__).parents[1]))
    out = subprocess.run(
        [sys.executable, "-c", script, binary, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    assert gone(int(out.stdout.strip()))


def test_principal_is_passed_to_the_child(binary: str, tmp_path: Path) -> None:
    (tmp_path / "mnemo.toml").write_text("[memory]\nacl_enabled = true\n")
    with Client.stdio(binary, workspace=tmp_path, principal="bob") as c:
        c.store(key="k", value="bob's note")
        assert c.get(key="k")["owner"] == "bob"


def test_a_child_that_exits_is_an_error_with_its_message(binary: str, tmp_path: Path) -> None:
    (tmp_path / "mnemo.toml").write_text('[memory]\nacl_enabled = "maybe"\n')
    c = Client.stdio(binary, workspace=tmp_path)
    with pytest.raises(TransportError) as caught:
        c.stats()
    assert "exit code 1" in caught.value.message
    assert "acl_enabled" in caught.value.message  # the child's stderr
    assert c.transport.closed  # type: ignore[attr-defined]


def test_no_answer_within_the_timeout_stops_the_child(tmp_path: Path) -> None:
    silent = tmp_path / "silent-mnemo"
    silent.write_text("#!/bin/sh\nexec sleep 60\n")
    silent.chmod(0o755)
    c = Client.stdio(silent, timeout=0.3)
    process = c.transport.process  # type: ignore[attr-defined]
    started = time.monotonic()
    with pytest.raises(TransportError, match="no answer within 0.3 s"):
        c.stats()
    assert time.monotonic() - started < 10
    assert process.returncode is not None


def test_a_missing_binary_is_a_transport_error(tmp_path: Path) -> None:
    with pytest.raises(TransportError, match="cannot start"):
        Client.stdio(tmp_path / "no-such-mnemo")
