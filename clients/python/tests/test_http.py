"""HTTP: bearer tokens, and retries of reads only."""
from __future__ import annotations

import http.server
import socket
import threading
import time
import urllib.request
from typing import Callable, Iterator, List

import pytest

from conftest import TOKEN, Daemon
from mnemo import Client, Denied, ErrorCode, NotFound, TransportError


def test_missing_or_wrong_token_is_refused(start_daemon: Callable[..., Daemon]) -> None:
    daemon = start_daemon(tokens=True)
    for token in (None, "wrong-token", TOKEN + "x"):
        with Client.http(daemon.url, token=token) as c:
            with pytest.raises(Denied) as caught:
                c.stats()
            assert caught.value.code == -32002
            assert caught.value.code is ErrorCode.DENIED
            assert "bearer token" in caught.value.message
    with Client.http(daemon.url + "/rpc", token=TOKEN) as c:
        c.store(key="k", value="alice's note")
        assert c.get(key="k")["owner"] == "alice"


class FlakyFront:
    """An HTTP front for the daemon that drops the first `drop` requests without an answer
    (the connection closes: RemoteDisconnected) and forwards the others."""

    def __init__(self, upstream: str, drop: int) -> None:
        self.upstream = upstream + "/rpc"
        self.drop = drop
        self.requests: List[bytes] = []
        front = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                front.requests.append(body)
                if len(front.requests) <= front.drop:
                    self.close_connection = True
                    return
                req = urllib.request.Request(
                    front.upstream,
                    data=body,
                    method="POST",
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req) as r:
                    answer = r.read()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def daemon(start_daemon: Callable[..., Daemon]) -> Daemon:
    return start_daemon()


@pytest.fixture
def flaky(daemon: Daemon) -> Iterator[Callable[[int], FlakyFront]]:
    fronts: List[FlakyFront] = []

    def make(drop: int) -> FlakyFront:
        fronts.append(FlakyFront(daemon.url, drop))
        return fronts[-1]

    yield make
    for f in fronts:
        f.close()


def test_read_is_retried_after_a_dropped_connection(
    daemon: Daemon, flaky: Callable[[int], FlakyFront]
) -> None:
    with Client.http(daemon.url) as direct:
        direct.store(key="k", value="value one")
    front = flaky(2)
    with Client.http(front.url, retries=2, backoff=0.01) as c:
        assert c.get(key="k")["content"] == "value one"
    assert len(front.requests) == 3  # two dropped, the third answered
    assert front.requests[0] == front.requests[2]  # the same request, sent again


def test_read_gives_up_after_its_retries(
    daemon: Daemon, flaky: Callable[[int], FlakyFront]
) -> None:
    front = flaky(10)
    with Client.http(front.url, retries=1, backoff=0.01) as c:
        with pytest.raises(TransportError) as caught:
            c.stats()
    assert caught.value.code is None
    assert len(front.requests) == 2


def test_write_is_not_retried(daemon: Daemon, flaky: Callable[[int], FlakyFront]) -> None:
    front = flaky(1)
    with Client.http(front.url, retries=3, backoff=0.01) as c:
        with pytest.raises(TransportError):
            c.store(key="k", value="maybe stored")
        assert len(front.requests) == 1
        with pytest.raises(NotFound):
            c.get(key="k")  # through the front, which now forwards
    assert len(front.requests) == 2


def test_tool_call_is_retried_only_for_read_tools(
    daemon: Daemon, flaky: Callable[[int], FlakyFront]
) -> None:
    search_front = flaky(1)
    with Client.http(search_front.url, backoff=0.01) as c:
        assert c.memory_search(query="anything")["is_error"] is False
    assert len(search_front.requests) == 2
    store_front = flaky(1)
    with Client.http(store_front.url, backoff=0.01) as c:
        with pytest.raises(TransportError):
            c.memory_store(key="k", value="v")
    assert len(store_front.requests) == 1


def test_connection_refused_is_a_transport_error(daemon: Daemon) -> None:
    port = int(daemon.url.rsplit(":", 1)[1])
    daemon.stop()
    with Client.http(f"http://127.0.0.1:{port}", retries=2, backoff=0.5) as c:
        started = time.monotonic()
        with pytest.raises(TransportError) as caught:
            c.stats()
        assert time.monotonic() - started >= 1.5  # waited 0.5 + 1.0 between three attempts
        started = time.monotonic()
        with pytest.raises(TransportError):
            c.store(key="k", value="v")
        assert time.monotonic() - started < 0.5  # a write: one attempt, no waiting
    assert "cannot reach" in caught.value.message


def test_bad_url_is_refused_early() -> None:
    with pytest.raises(ValueError):
        Client.http("127.0.0.1:8765")


def test_timeout_is_per_attempt_and_retried_for_reads_only() -> None:
    silent = socket.socket()  # accepts connections (its backlog) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    url = f"http://127.0.0.1:{silent.getsockname()[1]}"
    try:
        with Client.http(url, timeout=0.5, retries=2, backoff=0.01) as c:
            started = time.monotonic()
            with pytest.raises(TransportError, match="timed out"):
                c.stats()
            assert time.monotonic() - started >= 1.5  # three attempts of 0.5 s
            started = time.monotonic()
            with pytest.raises(TransportError, match="timed out"):
                c.store(key="k", value="v")
            assert time.monotonic() - started < 1.0  # one attempt
    finally:
        silent.close()
