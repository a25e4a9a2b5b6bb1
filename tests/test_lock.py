"""Reproducible installs (issue 43): requirements/lock.txt pins everything the Makefile installs,
every install in the Makefile goes through it, and the project's own environment is what it says.

A fresh clone once failed because nothing pinned what `make test` installed and a release since
CI's run broke it: the lock is what makes a clone today and a clone in a month install the same.
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for raw in LOCK.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, version = line.partition("==")
        assert sep and version and " " not in version, f"not an exact pin: {line!r}"
        pins[canonicalize_name(name)] = version
    return pins


def _project() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _direct_requirements() -> list[Requirement]:
    """The project's own requirements with every extra the Makefile installs, and the peers of
    the benchmarks, as this interpreter would take them."""
    project = _project()
    extras: dict[str, list[str]] = project["optional-dependencies"]  # type: ignore[assignment]
    lines = list(project["dependencies"])  # type: ignore[call-overload]
    for extra in extras.values():
        lines += [r for r in extra if not r.startswith("mdchunk[")]
    bench = (ROOT / "bench" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    lines += [r for r in bench if r.strip() and not r.lstrip().startswith("#")]
    environment = {"extra": ""}
    return [r for r in map(Requirement, lines)
            if r.marker is None or r.marker.evaluate(environment)]


def test_every_line_of_the_lock_is_an_exact_pin() -> None:
    pins = _pins()
    assert len(pins) > 50
    assert pins["torch"] == "2.13.0"  # the CPU build on disk; no local "+cpu" label


def test_the_lock_pins_every_requirement_within_its_range() -> None:
    pins = _pins()
    for requirement in _direct_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} is not in requirements/lock.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), \
            f"the lock's {name}=={pins[name]} is outside {requirement}"


def test_every_install_in_the_makefile_goes_through_the_lock() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^PIP\s*:=.*pip install .*-c \$\(LOCK\)", makefile, re.MULTILINE)
    for number, line in enumerate(makefile.splitlines(), 1):
        if "pip install" in line and not line.startswith(("PIP", "\t.venv-latest/")):
            pytest.fail(f"Makefile line {number} installs around the lock: {line.strip()}")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install" not in ci and "make test" in ci


@pytest.mark.skipif(Path(sys.prefix).resolve() != (ROOT / ".venv").resolve(),
                    reason="not the project's own .venv, which `make` builds from the lock")
def test_the_project_environment_is_the_lock() -> None:
    pins = _pins()
    differ = []
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        if name in pins and dist.version.split("+")[0] != pins[name]:
            differ.append(f"{name} {dist.version} (lock: {pins[name]})")
    assert not differ, "installed versions differ from requirements/lock.txt: " + \
        ", ".join(sorted(differ))
