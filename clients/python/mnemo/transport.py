"""The two ways to reach mnemo: HTTP (`POST /rpc` of `mnemo serve`) and a spawned
`mnemo rpc --stdio` child. Both send one JSON-RPC 2.0 request at a time and return its
`result`, or raise the MnemoError its `error` maps to."""
from __future__ import annotations

import collections
import http.client
import ipaddress
import itertools
import json
import os
import select
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from typing import IO, Any, Deque, List, Mapping, Optional, Protocol, Sequence, Union

from .errors import MnemoError, TransportError, error_from_response


class Transport(Protocol):
    """Sends one request. `idempotent` allows retrying it after a failed attempt."""

    def request(self, method: str, params: Mapping[str, Any], *, idempotent: bool) -> Any:
        ...

    def close(self) -> None:
        ...


def _envelope(request_id: int, method: str, params: Mapping[str, Any]) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, ensure_ascii=False
    ).encode("utf-8")


def _result(answer: Any, request_id: int) -> Any:
    if not isinstance(answer, dict) or answer.get("jsonrpc") != "2.0":
        raise TransportError(f"not a JSON-RPC 2.0 response: {str(answer)[:200]}")
    if "error" in answer:
        raise error_from_response(answer["error"])
    if answer.get("id") != request_id:
        raise TransportError(
            f"response id {answer.get('id')!r} does not match request id {request_id}"
        )
    if "result" not in answer:
        raise TransportError("JSON-RPC response without result or error")
    return answer["result"]


class _Retryable(Exception):
    """An attempt that failed before an answer; `error` is raised when no retry is left."""

    def __init__(self, error: MnemoError) -> None:
        super().__init__(str(error))
        self.error = error


# Statuses a proxy or an overloaded daemon answers with before the request ran (503 is
# also mnemo's answer past its connection caps).
_RETRY_STATUSES = frozenset({502, 503, 504})


def _is_loopback(host: Optional[str]) -> bool:
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HttpTransport:
    """JSON-RPC over `POST /rpc`. Thread-safe: each request is its own connection.

    url: the daemon's base URL (`http://127.0.0.1:8765`) or its /rpc URL. token: the bearer
    token (a `[[security.tokens]]` entry's). timeout: seconds per attempt. retries: extra
    attempts for idempotent requests after a connection failure, a timeout or HTTP
    502/503/504, waiting backoff, 2*backoff, ... seconds in between; other requests are
    sent once. Proxies from the environment are used except for loopback addresses.
    For an `https://` url the daemon's certificate is verified against the system's CAs, or
    against `ca_file` (a PEM file: the CA of a private certificate), or as `ssl_context` says.
    """

    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        timeout: Optional[float] = 30.0,
        retries: int = 2,
        backoff: float = 0.1,
        headers: Optional[Mapping[str, str]] = None,
        ca_file: Optional[str] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(
                f"url {url!r} is invalid: use http://HOST:PORT or http://HOST:PORT/rpc"
            )
        if ca_file is not None and ssl_context is not None:
            raise ValueError("give ca_file or ssl_context, not both")
        if parts.path in ("", "/"):
            parts = parts._replace(path="/rpc")
        self.url = urllib.parse.urlunsplit(parts)
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = backoff
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        self._headers.update(headers or {})
        if token is not None:
            self._headers["Authorization"] = f"Bearer {token}"
        handlers: List[urllib.request.BaseHandler] = []
        if _is_loopback(parts.hostname):
            handlers.append(urllib.request.ProxyHandler({}))
        if ca_file is not None:
            ssl_context = ssl.create_default_context(cafile=ca_file)
        if ssl_context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=ssl_context))
        self._opener = urllib.request.build_opener(*handlers)
        self._ids = itertools.count(1)
        self._ids_lock = threading.Lock()

    def request(self, method: str, params: Mapping[str, Any], *, idempotent: bool) -> Any:
        with self._ids_lock:
            request_id = next(self._ids)
        body = _envelope(request_id, method, params)
        attempts = 1 + (self.retries if idempotent else 0)
        for attempt in range(attempts):
            try:
                return _result(self._send(body), request_id)
            except _Retryable as failure:
                if attempt + 1 == attempts:
                    raise failure.error from None
                time.sleep(self.backoff * (2**attempt))
        raise AssertionError("unreachable")

    def _send(self, body: bytes) -> Any:
        req = urllib.request.Request(self.url, data=body, headers=self._headers, method="POST")
        try:
            with self._opener.open(req, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            answer = _json_or_none(raw)
            error = (
                error_from_response(answer["error"])
                if isinstance(answer, dict) and "error" in answer
                else TransportError(
                    f"HTTP {e.code} from {self.url}: {raw[:200]!r}", http_status=e.code
                )
            )
            if e.code in _RETRY_STATUSES:
                raise _Retryable(error) from None
            raise error from None
        except urllib.error.URLError as e:
            raise _Retryable(TransportError(f"cannot reach {self.url}: {e.reason}")) from None
        except (http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError) as e:
            raise _Retryable(TransportError(f"no answer from {self.url}: {e!r}")) from None
        answer = _json_or_none(raw)
        if answer is None:
            raise TransportError(f"the answer from {self.url} is not JSON: {raw[:200]!r}")
        return answer

    def close(self) -> None:
        """Nothing to release: connections are not kept."""


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _stop(process: "subprocess.Popen[bytes]", grace: float) -> None:
    """Ends the child: EOF on its stdin (it exits on its own), then SIGTERM, then SIGKILL."""
    if process.stdin is not None and not process.stdin.closed:
        try:
            process.stdin.close()
        except OSError:
            pass
    for stop in (None, process.terminate, process.kill):
        if stop is not None:
            stop()
        try:
            process.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    if process.stdout is not None:
        process.stdout.close()


def _drain(stream: IO[bytes], log: Deque[str]) -> None:
    """Reads the child's stderr to its end (so it never blocks on a full pipe), keeping
    the last lines."""
    for line in iter(stream.readline, b""):
        log.append(line.decode("utf-8", "replace").rstrip("\n"))
    stream.close()


class StdioTransport:
    """JSON-RPC with a `mnemo rpc --stdio` child: one JSON object per line each way.

    The child starts here and ends with close() (EOF on its stdin, then SIGTERM/SIGKILL
    if it does not exit within `grace` seconds), when the transport is garbage-collected,
    or at interpreter exit. Requests are serialised (one in flight). timeout: seconds to
    wait for an answer (None: no limit); after a timeout the child is stopped, since its
    answer would arrive out of turn. The child's stderr (its log) is kept, the last lines
    quoted in the error when it exits; pass `stderr` (a file or subprocess.DEVNULL) to send
    it elsewhere. No retries: a failed child is not restarted.
    """

    def __init__(
        self,
        command: Sequence[str],
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        stderr: Union[None, int, IO[Any]] = None,
        cwd: Optional[Union[str, "os.PathLike[str]"]] = None,
        grace: float = 5.0,
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self._log: Deque[str] = collections.deque(maxlen=20)
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if stderr is None else stderr,
                bufsize=0,
                env=None if env is None else dict(env),
                cwd=cwd,
            )
        except OSError as e:
            raise TransportError(f"cannot start {self.command[0]}: {e}") from None
        self._stderr_thread: Optional[threading.Thread] = None
        if stderr is None:
            # A function of the stream, not a bound method: the thread must not keep the
            # transport alive, or garbage collection would never stop the child.
            self._stderr_thread = threading.Thread(
                target=_drain,
                args=(self.process.stderr, self._log),
                daemon=True,
                name="mnemo-stdio-stderr",
            )
            self._stderr_thread.start()
        self._buffer = b""
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _stop, self.process, grace)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def _failure(self, what: str, exited: bool = True) -> TransportError:
        """Stops the child and returns the error naming its exit status and last log lines."""
        code = self.process.poll()
        if code is None and exited:
            try:
                code = self.process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        if code is None:
            self.process.terminate()  # stuck: no grace for EOF on stdin
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=1.0)
        status = "still running" if code is None else f"exit code {code}"
        tail = "\n".join(self._log)
        self.close()
        return TransportError(
            f"{what} ({' '.join(self.command)}: {status})" + (f":\n{tail}" if tail else "")
        )

    def request(self, method: str, params: Mapping[str, Any], *, idempotent: bool) -> Any:
        with self._lock:
            if self.closed:
                raise TransportError("the stdio client is closed")
            request_id = next(self._ids)
            stdin = self.process.stdin
            assert stdin is not None
            try:
                stdin.write(_envelope(request_id, method, params) + b"\n")
                stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                raise self._failure("mnemo rpc --stdio stopped reading") from None
            deadline = None if self.timeout is None else time.monotonic() + self.timeout
            while True:
                line = self._read_line(deadline)
                try:
                    answer = json.loads(line)
                except ValueError:
                    raise self._failure(
                        f"mnemo rpc --stdio wrote a line that is not JSON: {line[:200]!r}"
                    ) from None
                if isinstance(answer, dict) and answer.get("id") not in (request_id, None):
                    continue  # an answer to a request abandoned before; not ours
                return _result(answer, request_id)

    def _read_line(self, deadline: Optional[float]) -> bytes:
        stdout = self.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        while b"\n" not in self._buffer:
            if deadline is not None:
                left = deadline - time.monotonic()
                ready = select.select([fd], [], [], max(0.0, left))[0] if left > 0 else []
                if not ready:
                    raise self._failure(
                        f"no answer within {self.timeout} s; the child was stopped", exited=False
                    )
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._failure("mnemo rpc --stdio exited")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def close(self) -> None:
        """Stops the child (idempotent)."""
        self._finalizer()
        if (
            self._stderr_thread is not None
            and self._stderr_thread is not threading.current_thread()
        ):
            self._stderr_thread.join(timeout=1.0)


def stdio_command(
    binary: Union[str, "os.PathLike[str]"],
    workspace: Optional[Union[str, "os.PathLike[str]"]],
    principal: Optional[str],
    config: Optional[Union[str, "os.PathLike[str]"]],
) -> List[str]:
    """The command line of `mnemo [--workspace W] [--config C] [--principal P] rpc --stdio`."""
    command = [os.fspath(binary)]
    if workspace is not None:
        command += ["--workspace", os.fspath(workspace)]
    if config is not None:
        command += ["--config", os.fspath(config)]
    if principal is not None:
        command += ["--principal", principal]
    return command + ["rpc", "--stdio"]
