"""The README's code runs: its first example against the real binary, the others parse."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import mnemo

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> List[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_python_blocks_parse() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 3
    for block in blocks:
        ast.parse(block)


def test_readme_first_example_runs(binary: str, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mnemo").symlink_to(binary)  # the example finds `mnemo` on PATH
    code = python_blocks()[0].replace('"/tmp/demo"', repr(str(tmp_path / "demo")))
    env = dict(
        os.environ,
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=str(Path(mnemo.__file__).parents[1]),
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "The user prefers the Helix editor"
    assert lines[1].startswith("user_editor ")
    assert lines[-1] == "-32001 No memory entry found for key: nothing_here"
