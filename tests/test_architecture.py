"""Guard rails of the design (docs/architecture.md): the layers depend downwards only, and
no edge of pips decides anything by a game's name; it asks the game.

These read the source as text and syntax trees; they run nothing of it.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from pips.games.registry import all_games

SRC = Path(__file__).resolve().parents[1] / "src" / "pips"

LAYERS: dict[str, int] = {
    "core": 0,
    "games": 1,
    "files": 1,
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
``__init__`` are leaves anyone may read."""

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


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_layer_imports_a_higher_one(path: Path) -> None:
    part = part_of(path)
    if part not in LAYERS:
        return  # the package's own __init__, paths: leaves
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
        for path in sorted((SRC / "server" / folder).iterdir()):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for match in GAME_TEXT.finditer(line):
                    if (match.group(1) or match.group(2)) in words:
                        found.append(f"{path.name}:{number}: {match.group(0)}")
    assert found == []
