"""The package's build backend (PEP 517), standard library only.

setuptools needs the `wheel` package to build a wheel, which a python3 from outside Debian
(pyenv, python.org, a venv seeded by ensurepip) often lacks, and offline pip cannot fetch it:
`invalid command 'bdist_wheel'` (issue 44). It also wrote build/ and *.egg-info into the
checkout. This backend needs nothing beyond the standard library and writes only into the
folder pip gives it.

The wheel is `mnemo/` (every file but caches) with the metadata of pyproject.toml's
[project] table; the sdist is the files that build it. Both are reproducible: entries sorted,
with a fixed time.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "mnemo"
# Sources of the sdist beside the package.
SDIST_FILES = ("pyproject.toml", "README.md", "tools/mnemo_build_backend.py")
# 1980-01-01, the earliest time a zip entry holds.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
FIXED_EPOCH = 315532800


def _project() -> Dict[str, Any]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        return read_project_table(text)
    project: Dict[str, Any] = tomllib.loads(text)["project"]
    return project


def read_project_table(text: str) -> Dict[str, Any]:
    """The [project] table's strings and lists of strings, for Pythons without tomllib (the
    subset pyproject.toml uses; tests/test_build_backend.py holds it equal to tomllib's)."""
    section = re.search(r"^\[project\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if section is None:
        raise ValueError("pyproject.toml has no [project] table")
    out: Dict[str, Any] = {}
    for key, value in re.findall(r'^([A-Za-z0-9_-]+)\s*=\s*("[^"\n]*"|\[[^\]]*\])',
                                 section.group(1), re.M):
        if value.startswith('"'):
            out[key] = value[1:-1]
        else:
            out[key] = re.findall(r'"([^"\n]*)"', value)
    return out


def _dist_name(project: Dict[str, Any]) -> str:
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _metadata(project: Dict[str, Any]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
    ]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    readme = project.get("readme")
    body = ""
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        body = (ROOT / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + body


def _package_files() -> List[Path]:
    files = []
    for path in sorted((ROOT / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files.append(path)
    return files


def _wheel_name(project: Dict[str, Any]) -> str:
    return f"{_dist_name(project)}-{project['version']}-py3-none-any.whl"


def _dist_info(project: Dict[str, Any]) -> Tuple[str, Dict[str, bytes]]:
    name = f"{_dist_name(project)}-{project['version']}.dist-info"
    wheel = (
        "Wheel-Version: 1.0\nGenerator: mnemo_build_backend\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n"
    )
    return name, {
        "METADATA": _metadata(project).encode("utf-8"),
        "WHEEL": wheel.encode("utf-8"),
        "top_level.txt": f"{PACKAGE}\n".encode("utf-8"),
    }


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _write_wheel(directory: str, entries: List[Tuple[str, bytes]], dist_info: str,
                 project: Dict[str, Any]) -> str:
    record = [_record_line(arcname, data) for arcname, data in entries]
    record.append(f"{dist_info}/RECORD,,")
    entries = entries + [(f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode("utf-8"))]
    name = _wheel_name(project)
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as whl:
        for arcname, data in entries:
            info = zipfile.ZipInfo(arcname, FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(info, data)
    return name


# --- PEP 517 hooks ---


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: Optional[Dict[str, Any]] = None) -> str:
    project = _project()
    name, files = _dist_info(project)
    os.makedirs(os.path.join(metadata_directory, name), exist_ok=True)
    for file_name, data in files.items():
        Path(metadata_directory, name, file_name).write_bytes(data)
    return name


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    project = _project()
    dist_info, files = _dist_info(project)
    entries = [(path.relative_to(ROOT).as_posix(), path.read_bytes())
               for path in _package_files()]
    entries += [(f"{dist_info}/{name}", data) for name, data in files.items()]
    return _write_wheel(wheel_directory, entries, dist_info, project)


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    members = [(name, (ROOT / name).read_bytes()) for name in SDIST_FILES]
    members += [(path.relative_to(ROOT).as_posix(), path.read_bytes())
                for path in _package_files()]
    members.append(("PKG-INFO", _metadata(project).encode("utf-8")))
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for arcname, data in sorted(members):
            info = tarfile.TarInfo(f"{base}/{arcname}")
            info.size = len(data)
            info.mode = 0o644
            info.mtime = FIXED_EPOCH
            tar.addfile(info, io.BytesIO(data))
    return name
