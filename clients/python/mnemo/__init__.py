"""Python client of mnemo, the local-first memory engine for AI agents.

    from mnemo import Client

    with Client.http("http://127.0.0.1:8765", token=None) as c:
        c.store(key="user_editor", value="The user prefers Helix")
        hits = c.search(query="which editor")["results"]

Standard library only. See clients/python/README.md.
"""
from ._methods import METHODS, READ_METHODS, SCHEMA_VERSION, TOOLS
from .client import Client, is_read
from .errors import (
    Conflict,
    Denied,
    Disabled,
    ErrorCode,
    InternalError,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    MnemoError,
    NotFound,
    ParseError,
    TransportError,
    Unavailable,
)
from .transport import HttpTransport, StdioTransport, Transport

__version__ = "0.1.0"

__all__ = [
    "Client",
    "HttpTransport",
    "StdioTransport",
    "Transport",
    "METHODS",
    "TOOLS",
    "READ_METHODS",
    "SCHEMA_VERSION",
    "is_read",
    "ErrorCode",
    "MnemoError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "NotFound",
    "Denied",
    "Disabled",
    "Conflict",
    "Unavailable",
    "TransportError",
]
