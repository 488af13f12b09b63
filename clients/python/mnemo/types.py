"""The TypedDicts of method results and structured parameters (generated from
docs/schema.json), e.g. `from mnemo.types import SearchResult, TurnCompleteToolCall`."""
from ._methods import *  # noqa: F401,F403
from ._methods import __all__  # noqa: F401
