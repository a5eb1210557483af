"""The lock files: nothing is resolved at install time. Each requirement is pinned with `==` and
carries hashes; `make run` installs only the site's packages, `make test` and `make lint` the
development tools on top, at the very same versions; the RQ queue and the load benchmarks are
extras with locks of their own (ADR 0030)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCKS = (
    "requirements-bootstrap.lock",
    "requirements.lock",
    "requirements-rq.lock",
    "requirements-dev.lock",
    "requirements-bench.lock",
    "requirements-codegen.lock",
)
PINNED = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.!+_-]+$")
HASH = re.compile(r"^--hash=sha256:[0-9a-f]{64}$")
DEV_TOOLS = {"pytest", "pytest-django", "pytest-xdist", "pytest-randomly", "playwright", "ruff"}
DEV_TOOLS |= {"mypy", "schemathesis"}
RQ_STACK = {"django-tasks-rq", "rq", "rq-scheduler", "croniter", "crontab", "freezegun"}
BENCH_TOOLS = {"locust", "flask", "gevent", "psutil"}


def requirements(text: str) -> list[tuple[str, list[str]]]:
    """Each requirement of a lock file as (the requirement, its options), continuation lines
    joined and comments left out."""
    joined = re.sub(r"\\\n", " ", text)
    found = []
    for line in joined.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        first, *options = line.split()
        found.append((first, options))
    return found


def _pins(name: str) -> dict[str, str]:
    pins = {}
    for requirement, _ in requirements((ROOT / name).read_text(encoding="utf-8")):
        package, version = requirement.split("==")
        pins[package.lower()] = version
    return pins


def unpinned(text: str) -> list[str]:
    """The requirements an installer would have to resolve or could not check."""
    return [
        requirement
        for requirement, options in requirements(text)
        if not PINNED.match(requirement)
        or not options
        or not all(HASH.match(option) for option in options)
    ]


@pytest.mark.parametrize("name", LOCKS)
def test_every_requirement_is_pinned_exactly_with_hashes(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert requirements(text)
    assert unpinned(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "fonttools[woff]>=4.59.2 \\\n    --hash=sha256:" + "a" * 64,
        "django==5.2.19",
        "django==5.2.19 \\\n    --hash=md5:" + "a" * 32,
        "-e .",
        "--index-url https://example.org/simple\ndjango==5.2.19 --hash=sha256:" + "a" * 64,
    ],
)
def test_the_check_refuses_what_would_be_resolved_or_unchecked(text):
    assert unpinned(text)


def test_the_site_lock_holds_no_development_tool_nor_an_extra():
    site = _pins("requirements.lock")
    assert "django" in site and "gunicorn" in site
    assert not (DEV_TOOLS | RQ_STACK | BENCH_TOOLS) & site.keys()


@pytest.mark.parametrize(
    ("name", "adds"),
    [
        ("requirements-rq.lock", RQ_STACK),
        ("requirements-dev.lock", DEV_TOOLS | RQ_STACK),
        ("requirements-bench.lock", DEV_TOOLS | RQ_STACK | BENCH_TOOLS),
    ],
)
def test_each_lock_adds_its_tools_at_the_same_versions_of_the_site_packages(name, adds):
    site, lock = _pins("requirements.lock"), _pins(name)
    assert lock.keys() >= adds
    assert {package: lock.get(package) for package in site} == site


def test_the_test_lock_holds_no_load_benchmark():
    assert not {"locust", "flask", "gevent"} & _pins("requirements-dev.lock").keys()


def test_every_dependency_of_pyproject_is_locked_where_it_is_installed():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    wanted = {
        "requirements.lock": project["dependencies"],
        "requirements-rq.lock": extras["rq"],
        "requirements-dev.lock": extras["dev"] + extras["rq"],
        "requirements-bench.lock": extras["bench"],
    }
    for lock, listed in wanted.items():
        pins = _pins(lock)
        for requirement in listed:
            name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower()
            assert name in pins, f"{requirement} is not in {lock}"


def test_the_bootstrap_holds_the_installer_and_the_build_backend_only():
    assert set(_pins("requirements-bootstrap.lock")) == {"uv", "setuptools"}


def test_every_lock_file_is_checked():
    assert {path.name for path in ROOT.glob("requirements*.lock")} == set(LOCKS)
