"""Fixtures: the mnemo binary (--mnemo-binary or $MNEMO_BINARY), daemons on free loopback
ports with temp workspaces, and a client over each transport."""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterator, List, Optional

import pytest

from mnemo import Client

HERE = Path(__file__).resolve().parent
# The repository: $MNEMO_SOURCE_DIR (the run script copies this folder elsewhere), else
# the checkout holding this file.
SOURCE_DIR = Path(os.environ.get("MNEMO_SOURCE_DIR", HERE.parents[2]))
TOKEN = "py-client-test-token"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--mnemo-binary",
        default=os.environ.get("MNEMO_BINARY"),
        help="the mnemo binary (default $MNEMO_BINARY, else build/test's)",
    )


@pytest.fixture(scope="session")
def binary(pytestconfig: pytest.Config) -> str:
    path = pytestconfig.getoption("--mnemo-binary") or str(
        SOURCE_DIR / "build/test/apps/mnemo/mnemo"
    )
    if not os.access(path, os.X_OK):
        pytest.fail(f"no mnemo binary at {path}: pass --mnemo-binary or set MNEMO_BINARY")
    return os.path.abspath(path)


class Daemon:
    """`mnemo --workspace W serve --listen 127.0.0.1:0`, stopped at the end of the test."""

    def __init__(self, binary: str, workspace: Path) -> None:
        self.workspace = workspace
        self.log = workspace / "serve.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [binary, "--workspace", str(workspace), "serve", "--listen", "127.0.0.1:0"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            match = re.search(
                r"listening on (127\.0\.0\.1:\d+)( \(https\))?\n",
                self.log.read_text(errors="replace"),
            )
            if match:
                self.url = f"{'https' if match.group(2) else 'http'}://{match.group(1)}"
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"mnemo serve did not start: {self.log.read_text(errors='replace')}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def write_token_config(workspace: Path) -> None:
    """ACL on, and one bearer token acting as alice (role user)."""
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    (workspace / "mnemo.toml").write_text(
        "[memory]\nacl_enabled = true\n\n"
        f'[[security.tokens]]\nprincipal = "alice"\nrole = "user"\nsha256 = "{digest}"\n'
    )


@pytest.fixture
def start_daemon(binary: str, tmp_path: Path) -> Iterator[Callable[..., Daemon]]:
    daemons: List[Daemon] = []

    def start(tokens: bool = False, name: str = "ws") -> Daemon:
        workspace = tmp_path / name
        workspace.mkdir(mode=0o700)
        if tokens:
            write_token_config(workspace)
        daemons.append(Daemon(binary, workspace))
        return daemons[-1]

    yield start
    for d in daemons:
        d.stop()


@pytest.fixture(params=["http", "stdio"])
def client(
    request: pytest.FixtureRequest, binary: str, tmp_path: Path, start_daemon: Callable[..., Daemon]
) -> Iterator[Client]:
    """A client of a fresh workspace, over each transport."""
    c: Optional[Client] = None
    if request.param == "http":
        c = Client.http(start_daemon().url, timeout=20)
    else:
        workspace = tmp_path / "stdio-ws"
        workspace.mkdir(mode=0o700)
        c = Client.stdio(binary, workspace=workspace, timeout=20)
    with c:
        yield c
