"""When the run script installed the package (`pip install` into a venv), the tests import
that copy, with its py.typed marker."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import mnemo


@pytest.mark.skipif(
    os.environ.get("MNEMO_EXPECT_INSTALLED") != "1",
    reason="run from the checkout (tests/clients/run_python_test.sh installs it)",
)
def test_imported_from_the_installed_package() -> None:
    package = Path(mnemo.__file__).resolve().parent
    assert package.parent.name == "site-packages"
    assert Path(sys.prefix).resolve() in package.parents
    assert (package / "py.typed").is_file()
    assert (package / "_methods.py").is_file()
