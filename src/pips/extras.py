"""The parts of pips installed apart (the extras of ``pyproject.toml``, docs/install.md),
and what to tell someone whose command needs one that is not installed."""

from __future__ import annotations

from pips.core.phrase import Phrase, phrase

EXTRAS: dict[str, str] = {
    "numpy": "bots",
    "numba": "bots",
    "textual": "terminal",
    "reportlab": "sheets",
    "matplotlib": "plots",
    "sqlalchemy": "results",
    "alembic": "results",
    "openskill": "results",
    "icu": "results",
    "fastapi": "server",
    "fastapi_offline": "server",
    "starlette": "server",
    "uvicorn": "server",
    "jinja2": "server",
    "multipart": "server",
    "itsdangerous": "server",
    "argon2": "server",
    "prometheus_client": "server",
    "psycopg": "postgres",
    "redis": "broker",
    "dask": "cluster",
    "distributed": "cluster",
}
"""Per library pips can do without, the part of pips (the extra of pyproject.toml)
that brings it: a command that needs a part not installed says which to install."""


def missing_part(exc: ModuleNotFoundError) -> Phrase | None:
    """What to install when a command needs a library that is not there, or ``None``
    when the missing module is not one of an extra's (then it is a fault of pips)."""
    module = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(module)
    if extra is None:
        return None
    return phrase(
        "this needs the {extra} part of pips, and {module} is not installed:"
        " pip install 'pips[{extra}]' (or 'pips[all]' for every part)",
        extra=extra,
        module=module,
    )
