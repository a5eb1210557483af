"""The two lock files: `make run` installs only the site's packages, `make test` and `make lint`
the development tools on top, at the very same versions."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s\\]+)", re.MULTILINE)
DEV_TOOLS = {"pytest", "pytest-django", "playwright", "ruff", "mypy", "schemathesis", "locust"}


def _pins(name: str) -> dict[str, str]:
    text = (ROOT / name).read_text(encoding="utf-8")
    return {package.lower(): version for package, version in PIN.findall(text)}


def test_the_site_lock_holds_no_development_tool():
    site = _pins("requirements.lock")
    assert "django" in site and "gunicorn" in site
    assert not DEV_TOOLS & site.keys()


def test_the_development_lock_adds_tools_at_the_same_versions_of_the_site_packages():
    site, dev = _pins("requirements.lock"), _pins("requirements-dev.lock")
    assert dev.keys() >= DEV_TOOLS
    assert {package: dev.get(package) for package in site} == site


def test_every_dependency_of_pyproject_is_locked_for_the_site():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site = _pins("requirements.lock")
    for requirement in project["dependencies"]:
        name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower()
        assert name in site, requirement
