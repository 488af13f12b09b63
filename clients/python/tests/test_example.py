"""The worked example (examples/agent_loop.py) runs against the real binary, over both
transports, and its second session answers from memory."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, List

import pytest

import mnemo
from conftest import Daemon

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "agent_loop.py"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_agent_loop_example(
    transport: str, binary: str, tmp_path: Path, start_daemon: Callable[..., Daemon]
) -> None:
    args: List[str]
    if transport == "http":
        args = ["--url", start_daemon().url]
    else:
        args = ["--binary", binary, "--workspace", str(tmp_path)]
    env = dict(os.environ, PYTHONPATH=str(Path(mnemo.__file__).parents[1]))
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), *args], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "(new critical rule: Never email Sarah.)" in [line.strip() for line in lines]
    assert lines[-1] == "[tuesday] assistant: You use Helix (I remembered it)."
