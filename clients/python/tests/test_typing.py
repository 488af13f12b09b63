"""The package is typed (py.typed): mypy --strict passes on it and the example, and
catches wrong arguments and unknown result keys in code that uses it. (Not on these
tests: pytest's types would triple the run.)"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import mnemo

MISUSE = """\
from mnemo import Client
c = Client.stdio("mnemo")
c.store(key=1, value="v")
c.store(value="v")
c.search(query="q")["results"][0]["no_such_field"]
c.context_build(query="q", preset="huge")
ok: str = c.search(query="q")["results"][0]["content"]
"""


def test_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy (Debian's mypy package) is not installed")
    misuse = tmp_path / "misuse.py"
    misuse.write_text(MISUSE)
    here = Path(__file__).resolve().parent
    targets = [
        Path(mnemo.__file__).parent,
        here.parent / "examples" / "agent_loop.py",
        here.parent / "generate.py",
        misuse,
    ]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            *map(str, targets),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    elsewhere = [line for line in errors if not line.startswith(str(misuse))]
    assert not elsewhere, out.stdout
    lines = sorted({int(m.group(1)) for e in errors if (m := re.search(r"misuse\.py:(\d+):", e))})
    assert lines == [3, 4, 5, 6], out.stdout
