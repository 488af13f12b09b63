"""The package's own build backend (tools/mnemo_build_backend.py): a wheel pip can install,
built with the standard library only, and nothing written beside the sources."""
from __future__ import annotations

import base64
import hashlib
import importlib.util
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

SOURCE = Path(__file__).resolve().parents[1]


def backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "mnemo_build_backend", SOURCE / "tools" / "mnemo_build_backend.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def listing() -> list[str]:
    return sorted(str(p.relative_to(SOURCE)) for p in SOURCE.rglob("*")
                  if "__pycache__" not in p.parts and ".pytest_cache" not in p.parts)


def test_wheel_holds_the_package_and_a_valid_record(tmp_path: Path) -> None:
    before = listing()
    b = backend()
    assert b.get_requires_for_build_wheel() == []
    name = b.build_wheel(str(tmp_path))
    assert name == "mnemo_client-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(tmp_path / name) as whl:
        names = set(whl.namelist())
        assert {"mnemo/__init__.py", "mnemo/py.typed", "mnemo/_methods.py"} <= names
        assert not any("__pycache__" in n or n.startswith("tools/") for n in names)
        info = "mnemo_client-0.1.0.dist-info/"
        metadata = whl.read(info + "METADATA").decode()
        assert "Name: mnemo-client\n" in metadata
        assert "Requires-Python: >=3.9\n" in metadata
        record = whl.read(info + "RECORD").decode().splitlines()
        assert sorted(line.split(",")[0] for line in record) == sorted(names)
        for line in record:
            path, digest, size = line.split(",")
            if path == info + "RECORD":
                continue
            data = whl.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(data), path
    sdist = b.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / sdist) as tar:
        assert "mnemo_client-0.1.0/pyproject.toml" in tar.getnames()
    # Nothing written beside the sources (setuptools left build/ and *.egg-info).
    assert listing() == before


@pytest.mark.skipif(sys.version_info < (3, 11), reason="compares with tomllib (3.11+)")
def test_the_reader_for_pythons_without_tomllib_reads_what_tomllib_reads() -> None:
    import tomllib

    text = (SOURCE / "pyproject.toml").read_text()
    assert backend().read_project_table(text) == tomllib.loads(text)["project"]
