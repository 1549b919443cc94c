"""The parts of pips installed apart (the extras of ``pyproject.toml``, docs/install.md),
and what to tell someone whose command needs one that is not installed.

Which extra brings which library is read from the installed package's own metadata
(its ``Requires-Dist`` lines), so it cannot drift from pyproject.toml; only the
libraries imported under another name than their distribution's are named here."""

from __future__ import annotations

import re
from functools import cache
from importlib import metadata

from pips.core.phrase import Phrase, phrase

IMPORTED_AS: dict[str, str] = {
    "icu": "pyicu-wheels",
    "multipart": "python-multipart",
    "argon2": "argon2-cffi",
    "markdown_it": "markdown-it-py",
    "prometheus_client": "prometheus-client",
    "fastapi_offline": "fastapi-offline",
    "starlette": "fastapi",  # fastapi's own framework, never required apart
    "distributed": "dask",  # dask[distributed]
    "yaml": "pyyaml",
}
"""Modules whose distribution has another name (``import icu`` is ``pyicu-wheels``)."""

GATHERING = frozenset({"all", "dev", "bench"})
"""Extras that gather others (or the developers' tools): never the one to name."""

_REQUIREMENT = re.compile(
    r"""^([A-Za-z0-9][A-Za-z0-9._-]*)[^;]*;\s*extra\s*==\s*["']([^"']+)["']"""
)


def normalized(name: str) -> str:
    """A distribution's name as package indexes compare them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def extras() -> dict[str, str]:
    """Per distribution pips can do without, the first extra (in pyproject's order)
    that requires it directly; empty where pips is not installed as a package."""
    try:
        lines = metadata.metadata("pips").get_all("Requires-Dist") or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, str] = {}
    for line in lines:
        match = _REQUIREMENT.match(line)
        if match is None:
            continue  # a requirement of every install (typer, rich, babel)
        distribution, extra = normalized(match.group(1)), match.group(2)
        if distribution != "pips" and extra not in GATHERING:
            found.setdefault(distribution, extra)
    return found


def extra_of(module: str) -> str | None:
    """The extra that brings the library ``module`` is imported from, if any."""
    return extras().get(normalized(IMPORTED_AS.get(module, module)))


def missing_part(exc: ModuleNotFoundError) -> Phrase | None:
    """What to install when a command needs a library that is not there, or ``None``
    when the missing module is not one of an extra's (then it is a fault of pips)."""
    module = (exc.name or "").split(".")[0]
    extra = extra_of(module)
    if extra is None:
        return None
    return phrase(
        "this needs the {extra} part of pips, and {module} is not installed:"
        " pip install 'pips[{extra}]' (or 'pips[all]' for every part)",
        extra=extra,
        module=module,
    )
