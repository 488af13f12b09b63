"""The Client: every method of mnemo's method table (generated into _methods.py) over
one transport."""
from __future__ import annotations

import os
import ssl
from types import TracebackType
from typing import IO, Any, List, Mapping, Optional, Type, Union

from ._methods import READ_METHODS, TOOLS, Methods, ToolsSchemaResultItem
from .transport import HttpTransport, StdioTransport, Transport, stdio_command

PathLike = Union[str, "os.PathLike[str]"]


# READ_METHODS (generated from the schema's read_only) may be sent again when no answer
# came. Writes (store, forget, turn_complete, ...) are sent once: a lost answer may mean the
# write happened. memory.tool_call is a read when its tool runs a read (memory_get,
# memory_recall, memory_search, episodic_search).
def is_read(method: str, params: Optional[Mapping[str, Any]] = None) -> bool:
    """Whether a request may be sent again when no answer came (see READ_METHODS)."""
    if method == "memory.tool_call":
        tool = TOOLS.get(str((params or {}).get("name", "")))
        return tool is not None and tool[0] in READ_METHODS
    return method in READ_METHODS


class Client(Methods):
    """A mnemo client. Build one with Client.http(...) or Client.stdio(...), use it as a
    context manager (or call close()).

    Every JSON-RPC method is a method named after it without the `memory.` prefix, with
    keyword arguments named as in docs/methods.md (`c.store(key=..., value=...)`,
    `c.search(query=...)`); an argument left None is not sent, so the server's default
    applies. It returns the method's `result` and raises a MnemoError subclass for an
    error answer. The LLM tools are methods under their tool names (`c.memory_store`,
    `c.memory_search`, ...) returning {content, data, is_error} like memory.tool_call.
    """

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    @classmethod
    def http(
        cls,
        url: str = "http://127.0.0.1:8765",
        token: Optional[str] = None,
        timeout: Optional[float] = 30.0,
        retries: int = 2,
        backoff: float = 0.1,
        headers: Optional[Mapping[str, str]] = None,
        ca_file: Optional[str] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> "Client":
        """A client of `mnemo serve` at `url` (base URL or .../rpc), with the bearer `token`
        when the daemon has [[security.tokens]]. `timeout` is per attempt, in seconds; reads
        (READ_METHODS) are retried `retries` times after a connection failure, a timeout or
        HTTP 502/503/504, waiting `backoff` seconds, then twice that, ...; writes never.
        Over `https://` the certificate is verified against the system's CAs, or the PEM
        `ca_file` (a private CA), or as `ssl_context` says."""
        return cls(
            HttpTransport(
                url,
                token=token,
                timeout=timeout,
                retries=retries,
                backoff=backoff,
                headers=headers,
                ca_file=ca_file,
                ssl_context=ssl_context,
            )
        )

    @classmethod
    def stdio(
        cls,
        binary: PathLike = "mnemo",
        workspace: Optional[PathLike] = None,
        principal: Optional[str] = None,
        config: Optional[PathLike] = None,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        stderr: Union[None, int, IO[Any]] = None,
    ) -> "Client":
        """A client of a `mnemo [--workspace W] [--config C] [--principal P] rpc --stdio` child
        it starts now (found on PATH unless `binary` is a path). The child ends with close(),
        the `with` block, garbage collection or interpreter exit. `timeout`: seconds to wait
        for an answer (None: no limit). Its stderr is kept for error messages unless
        `stderr` (a file, subprocess.DEVNULL) says where to send it."""
        return cls(
            StdioTransport(
                stdio_command(binary, workspace, principal, config),
                timeout=timeout,
                env=env,
                stderr=stderr,
            )
        )

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """Calls any JSON-RPC method with `params` as given; returns its result."""
        params = dict(params or {})
        return self.transport.request(method, params, idempotent=is_read(method, params))

    def tools(self) -> List[ToolsSchemaResultItem]:
        """The LLM tools in OpenAI function-calling form (memory.tools_schema), to hand to a
        model; run the calls it makes with tool_call(name=..., arguments=...)."""
        return self.tools_schema()

    def close(self) -> None:
        """Releases the transport (stops a stdio child). Idempotent."""
        self.transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()
