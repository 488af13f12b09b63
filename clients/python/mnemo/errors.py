"""Typed errors: one class per JSON-RPC error code mnemo answers with, and TransportError
when no answer came (connection refused or reset, timeout, the stdio child gone)."""
from __future__ import annotations

import enum
from typing import Any, Dict, Mapping, Optional, Type


class ErrorCode(enum.IntEnum):
    """The JSON-RPC error codes of docs/methods.md."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL = -32000
    NOT_FOUND = -32001
    DENIED = -32002
    DISABLED = -32003
    CONFLICT = -32004
    UNAVAILABLE = -32005

    def __str__(self) -> str:
        return str(int(self))  # as on the wire, on every Python version


class MnemoError(Exception):
    """An error answer from mnemo (or, for TransportError, the lack of one).

    code: the JSON-RPC error code (an ErrorCode where mnemo documents it; None for a
        TransportError). message: mnemo's message, which says what was wrong and what is
        allowed. field: the offending parameter (`data.field`) for invalid params, else None.
    data: the error's whole `data` object ({} when there was none; it holds
        `request_id` for internal errors, to find the server's log line).
    """

    code: Optional[int]

    def __init__(
        self,
        code: Optional[int],
        message: str,
        field: Optional[str] = None,
        data: Optional[Mapping[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.data: Dict[str, Any] = dict(data or {})

    @property
    def request_id(self) -> Optional[str]:
        value = self.data.get("request_id")
        return value if isinstance(value, str) else None

    def __str__(self) -> str:
        where = f" (field {self.field})" if self.field else ""
        code = "" if self.code is None else f"[{self.code}] "
        return f"{code}{self.message}{where}"

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(code={self.code!r}, message={self.message!r}, field={self.field!r})"


class ParseError(MnemoError):
    """-32700: the request was not JSON."""


class InvalidRequest(MnemoError):
    """-32600: not a JSON-RPC request (or, over HTTP, a wrong Content-Type)."""


class MethodNotFound(MnemoError):
    """-32601: no such method."""


class InvalidParams(MnemoError):
    """-32602: a parameter is missing or invalid; `field` names it."""


class InternalError(MnemoError):
    """-32000: the server failed; `request_id` finds its log line."""


class NotFound(MnemoError):
    """-32001: nothing under that key or id."""


class Denied(MnemoError):
    """-32002: the ACL refused, or a missing or wrong bearer token (HTTP 401)."""


class Disabled(MnemoError):
    """-32003: disabled by configuration."""


class Conflict(MnemoError):
    """-32004: conflicts with what is stored."""


class Unavailable(MnemoError):
    """-32005: a dependency (embedder, database) is unavailable now."""


class TransportError(MnemoError):
    """No answer: connection refused or reset, a timeout, an HTTP status without a JSON-RPC
    body, or the stdio child gone. `code` is None; `http_status` is set for HTTP statuses."""

    def __init__(self, message: str, http_status: Optional[int] = None) -> None:
        super().__init__(None, message)
        self.http_status = http_status


_BY_CODE: Dict[int, Type[MnemoError]] = {
    ErrorCode.PARSE_ERROR: ParseError,
    ErrorCode.INVALID_REQUEST: InvalidRequest,
    ErrorCode.METHOD_NOT_FOUND: MethodNotFound,
    ErrorCode.INVALID_PARAMS: InvalidParams,
    ErrorCode.INTERNAL: InternalError,
    ErrorCode.NOT_FOUND: NotFound,
    ErrorCode.DENIED: Denied,
    ErrorCode.DISABLED: Disabled,
    ErrorCode.CONFLICT: Conflict,
    ErrorCode.UNAVAILABLE: Unavailable,
}


def error_from_response(error: Any) -> MnemoError:
    """The exception for a JSON-RPC `error` member."""
    if not isinstance(error, dict):
        return MnemoError(ErrorCode.INTERNAL, f"malformed JSON-RPC error: {error!r}")
    raw_code = error.get("code")
    code: int = raw_code if isinstance(raw_code, int) else ErrorCode.INTERNAL
    try:
        code = ErrorCode(code)
    except ValueError:
        pass
    data = error.get("data")
    data = data if isinstance(data, dict) else ({} if data is None else {"value": data})
    field = data.get("field")
    cls = _BY_CODE.get(code, MnemoError)
    return cls(code, str(error.get("message", "")), field if isinstance(field, str) else None, data)
