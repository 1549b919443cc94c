"""Docs that stay true: every Sphinx cross-reference in pips's source points at something.

A docstring (or a comment) that sends its reader to ``:func:`name``` promises that
``name`` is there. This resolves every such reference — ``:func:``, ``:class:``,
``:mod:``, ``:meth:``, ``:data:``, ``:attr:``, ``:exc:``, with ``~``, ``!``, an explicit
title (``text <target>``) and the relative forms — against what pips defines, read
from its syntax trees (nothing of pips runs), as Sphinx's Python domain would:

- a name is looked up as written, then in the module it is written in, then in the
  class it is written in (``modname.name``, ``modname.classname.name``);
- a name starting with a dot is looked up in the class and module first, then as the
  end of any name pips defines;
- ``:mod:`` takes a module's full name only.

What pips defines: its modules, their classes, functions and data (assigned at module
level, also under ``if TYPE_CHECKING``), a class's methods, fields, class attributes
and the attributes its methods set on ``self``, and a class's inherited members (its
bases followed). One freedom Sphinx does not take: a name a module imports stands for
what it imports, as it does for the module's reader (``:class:`Round``` in a module
that imports ``Round``). Targets outside pips are allowed from the standard library and
the few packages in ``EXTERNAL``, and checked there by importing them.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "pips"

EXTERNAL = frozenset(
    {
        "alembic",
        "babel",
        "fastapi",
        "numpy",
        "pydantic",
        "sqlalchemy",
        "starlette",
        "textual",
        "typer",
    }
)
"""Packages besides the standard library a reference may point into (each target is
checked by importing it)."""

ROLES = ("func", "class", "mod", "meth", "data", "attr", "exc", "obj", "const")

REFERENCE = re.compile(r":(?:py:)?(" + "|".join(ROLES) + r"):`([^`]*)`")


@dataclass
class Inventory:
    """What pips defines, by full dotted name: its kind (``module``, ``class``,
    ``function``, ``data``) or, for a name a module imports, ``alias`` and what it
    stands for."""

    kinds: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    bases: dict[str, list[str]] = field(default_factory=dict)

    def define(self, name: str, kind: str) -> None:
        # A name both imported and defined (a fallback under try/except) is defined.
        if kind != "alias" or name not in self.kinds:
            self.kinds[name] = kind


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a name or an attribute chain (a subscript's value for a generic
    base), else None."""
    if isinstance(node, ast.Subscript):
        return dotted(node.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def stored_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in stored_names(element)]
    return []


def imported_from(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute module an ``ImportFrom`` in ``module`` reads."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def collect(
    inventory: Inventory,
    prefix: str,
    body: list[ast.stmt],
    module: str,
    is_package: bool,
    pending_bases: list[tuple[str, str, list[str]]],
) -> None:
    """Define what ``body`` (a module's or a class's) defines under ``prefix``."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inventory.define(f"{prefix}.{node.name}", "function")
            if prefix != module:  # a method: what it sets on self is the class's
                for inner in ast.walk(node):
                    if (
                        isinstance(inner, ast.Attribute)
                        and isinstance(inner.ctx, ast.Store)
                        and isinstance(inner.value, ast.Name)
                        and inner.value.id == "self"
                    ):
                        inventory.define(f"{prefix}.{inner.attr}", "data")
        elif isinstance(node, ast.ClassDef):
            name = f"{prefix}.{node.name}"
            inventory.define(name, "class")
            bases = [base for base in map(dotted, node.bases) if base]
            pending_bases.append((name, module, bases))
            collect(inventory, name, node.body, module, is_package, pending_bases)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for stored in stored_names(target):
                    inventory.define(f"{prefix}.{stored}", "data")
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            for stored in stored_names(node.target):
                inventory.define(f"{prefix}.{stored}", "data")
        elif sys.version_info >= (3, 12) and isinstance(node, ast.TypeAlias):
            inventory.define(f"{prefix}.{node.name.id}", "data")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    inventory.define(f"{prefix}.{alias.asname}", "alias")
                    inventory.aliases[f"{prefix}.{alias.asname}"] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    inventory.define(f"{prefix}.{top}", "alias")
                    inventory.aliases[f"{prefix}.{top}"] = top
        elif isinstance(node, ast.ImportFrom):
            source = imported_from(module, node, is_package)
            for alias in node.names:
                if alias.name == "*":
                    continue
                local = f"{prefix}.{alias.asname or alias.name}"
                inventory.define(local, "alias")
                inventory.aliases[local] = f"{source}.{alias.name}"
        elif isinstance(node, ast.If | ast.Try | ast.With):
            blocks = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            blocks += [handler.body for handler in getattr(node, "handlers", [])]
            for block in blocks:
                collect(inventory, prefix, block, module, is_package, pending_bases)


def sources() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


@functools.cache
def parsed(path: Path) -> tuple[str, ast.Module]:
    text = path.read_text(encoding="utf-8")
    return text, ast.parse(text)


@functools.cache
def inventory_of_pips() -> Inventory:
    inventory = Inventory()
    pending: list[tuple[str, str, list[str]]] = []
    for path in sources():
        module = module_name(path)
        inventory.define(module, "module")
        _text, tree = parsed(path)
        collect(inventory, module, tree.body, module, path.name == "__init__.py", pending)
    for name, module, bases in pending:
        # A base is named as its module reads it: a local class or an import, else a
        # builtin (``Exception``).
        inventory.bases[name] = [
            f"{module}.{base}" if f"{module}.{base.split('.')[0]}" in inventory.kinds else base
            for base in bases
        ]
    return inventory


class Resolver:
    """Whether a full dotted name is something: pips's, or outside pips where allowed."""

    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory
        self.outside: dict[str, bool] = {}

    def exists(self, name: str) -> bool:
        return self.canonical(name, 0) is not None

    def canonical(self, name: str, depth: int) -> str | None:
        """Where ``name`` leads: a name pips defines (imports followed, inherited
        members found in the bases), a name outside pips that is there, or None."""
        if depth > 30:  # names that import each other in a circle
            return None
        kinds = self.inventory.kinds
        if name in kinds:
            if kinds[name] != "alias":
                return name
            return self.canonical(self.inventory.aliases[name], depth + 1)
        head, _, last = name.rpartition(".")
        if not head:
            return name if self.is_outside(name) else None
        owner = self.canonical(head, depth + 1)
        if owner is None:
            return None
        member = f"{owner}.{last}"
        if owner not in kinds:  # outside pips
            return member if self.is_outside(member) else None
        if member in kinds:
            return self.canonical(member, depth + 1)
        if kinds[owner] == "class":
            for base in self.inventory.bases[owner]:
                found = self.canonical(f"{base}.{last}", depth + 1)
                if found is not None:
                    return found
        return None

    def is_module(self, name: str) -> bool:
        if self.inventory.kinds.get(name) == "module":
            return True
        if name.split(".")[0] not in EXTERNAL | sys.stdlib_module_names:
            return False
        try:
            importlib.import_module(name)
        except ImportError:
            return False
        return True

    def is_outside(self, name: str) -> bool:
        """Whether ``name`` is a builtin, or in the standard library or a package of
        ``EXTERNAL`` (imported to check)."""
        if name in self.outside:
            return self.outside[name]
        parts = name.split(".")
        found = False
        if parts[0] not in sys.stdlib_module_names and hasattr(builtins, parts[0]):
            parts = ["builtins", *parts]
        if parts[0] in EXTERNAL | sys.stdlib_module_names:
            for cut in range(len(parts), 0, -1):
                try:
                    target: object = importlib.import_module(".".join(parts[:cut]))
                except ImportError:
                    continue
                found = True
                for part in parts[cut:]:
                    if not hasattr(target, part):
                        # A class's annotated field (a dataclass's, a TypedDict's).
                        found = part in getattr(target, "__annotations__", {})
                        break
                    target = getattr(target, part)
                break
        self.outside[name] = found
        return found


def target_of(text: str) -> str:
    """The target of a role's text: its explicit title dropped, ``~`` and ``!`` too."""
    explicit = re.fullmatch(r"(?s).*<(.+)>", text)
    target = explicit.group(1) if explicit else text
    return target.lstrip("~!").removesuffix("()")


def classes_by_line(tree: ast.Module) -> list[tuple[int, int, str]]:
    """Each class's lines and its name within the module (``Outer.Inner``)."""
    spans: list[tuple[int, int, str]] = []

    def visit(body: list[ast.stmt], outer: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                name = f"{outer}.{node.name}" if outer else node.name
                spans.append((node.lineno, node.end_lineno or node.lineno, name))
                visit(node.body, name)
                continue
            # A method's docstring is read in its class: its lines keep the class.
            for block in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, block, None)
                if isinstance(inner, list):
                    visit([n for n in inner if isinstance(n, ast.stmt)], outer)
                    for handler in inner:
                        if isinstance(handler, ast.ExceptHandler):
                            visit(handler.body, outer)

    visit(tree.body, "")
    return spans


def class_at(spans: list[tuple[int, int, str]], line: int) -> str:
    inside = [(start, name) for start, end, name in spans if start <= line <= end]
    return max(inside)[1] if inside else ""


def broken_references(resolver: Resolver) -> list[str]:
    broken: list[str] = []
    kinds = resolver.inventory.kinds
    for path in sources():
        text, tree = parsed(path)
        if not REFERENCE.search(text):
            continue
        module = module_name(path)
        spans = classes_by_line(tree)
        for match in REFERENCE.finditer(text):
            role, raw = match.groups()
            line = text.count("\n", 0, match.start()) + 1
            where = f"{path.relative_to(SRC.parent)}:{line}: :{role}:`{raw}`"
            target = target_of(raw)
            if not target or re.search(r"\s", target):
                broken.append(where)  # Sphinx reads a target broken across lines as words
                continue
            if role == "mod":
                if not resolver.is_module(target):
                    broken.append(where)
                continue
            cls = class_at(spans, line)
            if target.startswith("."):
                name = target[1:]
                candidates = [f"{module}.{cls}.{name}" if cls else "", f"{module}.{name}", name]
                if any(c and resolver.exists(c) for c in candidates):
                    continue
                if any(
                    full.endswith(f".{name}") and kind != "alias" for full, kind in kinds.items()
                ):
                    continue
                broken.append(where)
                continue
            candidates = [target, f"{module}.{target}"]
            if cls:
                candidates.append(f"{module}.{cls}.{target}")
            if not any(resolver.exists(candidate) for candidate in candidates):
                broken.append(where)
    return broken


def test_every_cross_reference_in_the_source_points_at_something() -> None:
    broken = broken_references(Resolver(inventory_of_pips()))
    assert not broken, "cross-references to nothing:\n" + "\n".join(broken)


def test_the_resolver_finds_what_sphinx_would_and_nothing_else() -> None:
    """The resolver can fail: relative names resolve in their module and class,
    inherited members through the bases, imports through what they import; a name
    nowhere does not."""
    resolver = Resolver(inventory_of_pips())
    assert resolver.exists("pips.games.common.HandState.play")
    assert resolver.exists("pips.games.fido.FidoState.play")  # inherited
    assert resolver.exists("pips.server.table.LiveTable.submit_move")
    assert resolver.exists("asyncio.Lock")
    assert resolver.exists("int")
    assert not resolver.exists("pips.server.round.Round.play")
    assert not resolver.exists("pips.games.fido.FidoState.no_such_method")
    assert not resolver.exists("asyncio.NoSuchLock")
    assert resolver.is_module("pips.server.round")
    assert not resolver.is_module("pips.server.nothing")
    assert target_of("~pips.core.tiles.Tile") == "pips.core.tiles.Tile"
    assert target_of("the tile <pips.core.tiles.Tile>") == "pips.core.tiles.Tile"
