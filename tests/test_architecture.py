"""Guard rails of the design (docs/architecture.md): the layers depend downwards only, and
no edge of pips decides anything by a game's name; it asks the game.

These read the source as text and syntax trees; they run nothing of it.
"""

from __future__ import annotations

import ast
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pips.games.registry import all_games

SRC = Path(__file__).resolve().parents[1] / "src" / "pips"

LAYERS: dict[str, int] = {
    "core": 0,
    "games": 1,
    "files": 1,
    "i18n": 1,
    "extras": 1,
    "record": 2,
    "display": 2,
    "text": 2,
    "bots": 3,
    "sim": 4,
    "results": 4,
    "store": 4,
    "tui": 5,
    "server": 5,
    "cli": 6,
}
"""Each part of pips and its layer: a module may import its own layer's parts (within
reason, checked below) and lower ones, never a higher one. ``paths`` and the package's
``__init__`` are leaves anyone may read; ``__main__`` only starts the command line."""

LEAVES = {"__init__", "__main__", "paths"}

ALLOWED_SAME_LAYER = {
    ("record", "display"),  # display steps through records (replays)
    ("display", "record"),
    ("results", "store"),  # the results service keeps its rows in the database
    ("server", "tui"),  # never: listed to be refused below
}
ALLOWED_SAME_LAYER.discard(("server", "tui"))


def modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "migrations" not in p.parts)


def part_of(path: Path) -> str:
    relative = path.relative_to(SRC)
    return relative.parts[0].removesuffix(".py")


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names), at any depth of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_core_imports_only_the_standard_library_and_itself() -> None:
    stdlib = sys.stdlib_module_names
    for path in (SRC / "core").rglob("*.py"):
        for name in imported(path):
            top = name.split(".")[0]
            if name.startswith("pips."):
                assert name.startswith("pips.core"), f"{path.name} imports {name}"
            else:
                assert top in stdlib or top == "__future__", f"{path.name} imports {name}"


def test_games_import_only_core_and_games() -> None:
    stdlib = sys.stdlib_module_names
    for path in (SRC / "games").rglob("*.py"):
        for name in imported(path):
            if name.startswith("pips."):
                assert name.startswith(("pips.core", "pips.games")), f"{path.name}: {name}"
            else:
                top = name.split(".")[0]
                assert top in stdlib or top == "__future__", f"{path.name} imports {name}"


def test_every_part_of_pips_has_its_layer() -> None:
    """A new part of pips is placed in the layers (and so in the test below) before it
    lands: none is left out of the rule by being forgotten."""
    parts = {part_of(path) for path in modules()}
    assert parts - LEAVES == set(LAYERS), parts.symmetric_difference(set(LAYERS) | LEAVES)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_layer_imports_a_higher_one(path: Path) -> None:
    part = part_of(path)
    if part in LEAVES:
        return
    for name in imported(path):
        if not name.startswith("pips."):
            continue
        other = name.split(".")[1]
        if other not in LAYERS or other == part:
            continue
        assert LAYERS[other] < LAYERS[part] or (part, other) in ALLOWED_SAME_LAYER, (
            f"{path.relative_to(SRC)} ({part}, layer {LAYERS[part]}) imports {name} "
            f"({other}, layer {LAYERS[other]})"
        )


def game_words() -> set[str]:
    words = set()
    for spec in all_games():
        words.add(spec.name)
        words.update(spec.aliases)
    return words


def names_a_game(node: ast.expr, words: set[str]) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in words
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(names_a_game(e, words) for e in node.elts)
    return False


def about_a_game(node: ast.expr) -> bool:
    """Whether an expression reads like a game's name (``view.game``, ``spec.name``)."""
    text = ast.unparse(node)
    return "game" in text or text.endswith(".name")


def game_name_uses(path: Path, words: set[str]) -> list[str]:
    """Comparisons of a game's name, lookups of a game by a literal name, and literal
    game names as mapping keys."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    # Names that are also everyday words (the draw game, aliases like "divisor") count
    # only when compared with something that is a game; the others count wherever they
    # are compared or used as keys.
    plain = {spec.name for spec in all_games()} - {"draw"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for side in sides:
                others = [s for s in sides if s is not side]
                if names_a_game(side, plain) or (
                    names_a_game(side, words) and any(about_a_game(o) for o in others)
                ):
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and node.args:
            callee = ast.unparse(node.func)
            if callee.endswith(("find_game", "warm_up", "fast_rules")) and names_a_game(
                node.args[0], words
            ):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                if key is not None and names_a_game(key, plain):
                    found.append(f"{path.name}:{node.lineno}: a key {ast.unparse(key)}")
    return found


def test_no_edge_compares_a_games_name() -> None:
    """Outside pips.games, nothing asks which game it is: it asks the game."""
    words = game_words()
    found = []
    for path in modules():
        if part_of(path) == "games":
            continue
        found += game_name_uses(path, words)
    assert found == []


def test_the_guard_sees_a_game_name_comparison(tmp_path: Path) -> None:
    """The check above can fail: it finds the shapes the redesign removed."""
    words = game_words()
    sample = tmp_path / "edge.py"
    sample.write_text(
        'if view.game == "fido": pass\n'
        'if game in ("family", "draw"): pass\n'
        'spec = find_game("partnership")\n'
        'table = {"doubles": 1}\n'
        'if head == "draw": pass\n',  # a move word, not a game: allowed
        encoding="utf-8",
    )
    assert len(game_name_uses(sample, words)) == 4
    assert GAME_TEXT.search('if (table.game !== "partnership") info.push("stock");')
    assert GAME_TEXT.search('{% if form.game in ("fido", "draw") %}')


GAME_TEXT = re.compile(
    r"""game(?:\.value)?\s*(?:===?|!==?)\s*["'](\w+)["']|game\s+(?:not\s+)?in\s*\(\s*["'](\w+)"""
)


def test_no_page_or_script_compares_a_games_name() -> None:
    """The browser gets what it needs in the server's messages and the pages' data."""
    words = game_words()
    found = []
    for folder in ("templates", "static"):
        # Only files: running or compiling static/check_list.py leaves a __pycache__ here.
        for path in sorted(p for p in (SRC / "server" / folder).iterdir() if p.is_file()):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for match in GAME_TEXT.finditer(line):
                    if (match.group(1) or match.group(2)) in words:
                        found.append(f"{path.name}:{number}: {match.group(0)}")
    assert found == []


# -- the map -----------------------------------------------------------------------------

ROOT = SRC.parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"

NOT_OURS = {"Env", "None", "error"}
"""Words in code type in docs/architecture.md that name no code of pips (lila's ``Env``,
Python's ``None``, a message type)."""

EXAMPLE = ("muggins",)
"""The game docs/architecture.md adds step by step, which does not exist."""


def class_members() -> dict[str, set[str]]:
    """Per class name, what its classes of that name define (methods, fields, class
    attributes, attributes set on ``self``)."""
    members: dict[str, set[str]] = {}
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found = members.setdefault(node.name, set())
                for inner in ast.walk(node):
                    if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                        found.add(inner.name)
                    elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                        found.add(inner.id)
                    elif isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store):
                        found.add(inner.attr)
    return members


def defined_names() -> set[str]:
    """Every name pips defines: packages, modules, classes, functions, methods,
    attributes and fields (assigned at module or class level, or on ``self``), and the
    tests' names."""
    names: set[str] = set()
    for path in [*modules(), *(ROOT / "tests").glob("*.py")]:
        names.add(path.stem)
        names.add(path.parent.name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return names


def has(dotted: str, names: set[str], members: dict[str, set[str]]) -> bool:
    """Whether ``a.b.c`` names what pips has: every part a name it defines, and a part
    after a class one that class defines."""
    parts = [part for part in dotted.split(".") if part]
    if not all(part in names for part in parts):
        return False
    return all(
        after in members[part] for part, after in itertools.pairwise(parts) if part in members
    )


def missing_in_map(text: str, names: set[str]) -> list[str]:
    """The code names in ``text`` (in backticks) that pips does not have."""
    members = class_members()
    missing = []
    for token in re.findall(r"`([^`\n]+)`", text):
        if token in NOT_OURS or any(word in token.lower() for word in EXAMPLE):
            continue
        if " " in token or token.startswith(("/", "{", "pips.record/")) or "[" in token:
            continue  # a command, an address, a message or an expression
        if '"' in token:
            continue  # a command, an address, a message or an expression
        path, _, inside = token.partition(":")
        if "/" in path or path.endswith((".py", ".js", ".md")):
            found = [
                base / path
                for base in (SRC, ROOT, SRC / "server" / "static")
                if (base / path).exists()
            ] or list(SRC.rglob(path))
            if not found:
                missing.append(token)
                continue
            if inside and not has(inside, names, members):
                missing.append(token)
            continue
        if not has(re.sub(r"\(.*\)$", "", token), names, members):
            missing.append(token)
    return missing


@pytest.mark.slow
def test_every_code_name_in_the_architecture_map_exists() -> None:
    """docs/architecture.md names only what is there: every file, module, class,
    function and attribute it puts in code type (a renamed one is renamed there too)."""
    missing = missing_in_map(ARCHITECTURE.read_text(encoding="utf-8"), defined_names())
    assert not missing, f"docs/architecture.md names what pips does not have: {missing}"


def test_module_docstrings_point_to_what_exists() -> None:
    """A module's docstring sends its reader only to modules, tests and documents that
    exist (``:mod:`pips.x```, ``tests/test_x.py``, ``docs/x.md``)."""
    wrong = []
    for path in modules():
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        for module in re.findall(r":mod:`~?(pips(?:\.\w+)*)`", doc):
            relative = Path(*module.split(".")[1:])
            if not ((SRC / relative).with_suffix(".py").exists() or (SRC / relative).is_dir()):
                wrong.append(f"{path.relative_to(SRC)}: {module}")
        for document in re.findall(r"\b((?:tests|docs|benchmarks)/[\w/.-]+\.(?:py|md))", doc):
            if not (ROOT / document).exists():
                wrong.append(f"{path.relative_to(SRC)}: {document}")
    assert not wrong, wrong


def test_no_two_classes_of_pips_share_a_name() -> None:
    """One meaning per name: a class name says which thing it is wherever it is read (a
    move applied is a ``MoveEvent``, an event of players an ``Event``)."""
    where: dict[str, list[str]] = {}
    for path in modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(path.relative_to(SRC)))
    shared = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert not shared, shared


LONGEST_MODULE = 600
LONGEST_CLASS = 400
TOO_LONG_BY_NATURE = {"bots/kernel.py"}
"""The compiled playout kernel: one module of numba functions over the same arrays,
whose speed depends on their living together (docs/bots.md)."""


def test_no_module_or_class_grows_past_what_a_reader_holds() -> None:
    """Parts split along what they do: no module over 600 lines (the kernel and the
    migrations aside) and no class over 400."""
    long_modules, long_classes = [], []
    for path in modules():
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(SRC))
        if name not in TOO_LONG_BY_NATURE and text.count("\n") > LONGEST_MODULE:
            long_modules.append(name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and (node.end_lineno or 0) - node.lineno >= (
                LONGEST_CLASS
            ):
                long_classes.append(f"{name}:{node.name}")
    assert not long_modules and not long_classes, (long_modules, long_classes)


def test_the_round_imports_nothing_of_the_accounts_the_database_or_the_web() -> None:
    """A round is rules and events (issue 54): importing :mod:`pips.server.round` in a
    fresh interpreter brings in no password hashing, database, migrations, collation,
    request parsing or web framework (who a connection is lives in the leaf
    :mod:`pips.server.identity`; a seat as a client chose it is parsed at the edge,
    :mod:`pips.server.requests`, and handed to the round as the round's own
    :data:`~pips.server.round.SeatChoice`; a hint's message is built at the edge,
    :func:`pips.server.telling.hint`)."""
    heavy = ("argon2", "sqlalchemy", "alembic", "icu", "pydantic", "fastapi", "starlette")
    code = f"import sys, pips.server.round; print([m for m in {heavy!r} if m in sys.modules])"
    # This checkout's pips, whatever the interpreter has installed.
    path = os.pathsep.join(filter(None, [str(SRC.parent), os.environ.get("PYTHONPATH")]))
    found = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": path},
    ).stdout
    assert found.strip() == "[]", found
