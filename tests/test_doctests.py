"""The examples in the package's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pips

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(pips.__path__, "pips.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
