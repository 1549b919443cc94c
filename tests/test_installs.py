"""The parts of pips install apart (docs/install.md): the core install (rules, records,
simple bots, the command) needs none of the extras' libraries, and a command that needs
a part not installed says which to install, with exit code 2 and no traceback.

Each test runs pips in a process where the extras' libraries cannot be imported (an
import hook refuses them), as on a machine with only ``pip install pips``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pips.extras import IMPORTED_AS, extra_of, extras

ROOT = Path(__file__).resolve().parents[1]

REFUSED = sorted(
    {
        "numpy",
        "numba",
        "textual",
        "reportlab",
        "matplotlib",
        "sqlalchemy",
        "alembic",
        "openskill",
        "icu",
        "fastapi",
        "fastapi_offline",
        "starlette",
        "uvicorn",
        "jinja2",
        "multipart",
        "itsdangerous",
        "argon2",
        "prometheus_client",
        "orjson",
        "psycopg",
        "redis",
        "dask",
        "distributed",
        "httpx",
    }
)
"""The libraries the extras bring, as they are imported (typer and rich bring pydantic
and markdown-it themselves, so they are no extra's)."""


def test_every_library_an_extra_brings_is_known_by_its_import_name() -> None:
    """The extras are read from the package's metadata, and every library pyproject
    puts in a part (but the developers' tools) is refused in these tests by the name
    it is imported as: what an extra brings cannot drift from what is tested."""
    from importlib import metadata

    from pips.extras import normalized

    brought = set(extras())
    refused = {normalized(IMPORTED_AS.get(module, module)) for module in REFUSED}
    assert brought - {"typing-extensions", "markdown-it-py", "pydantic"} == refused
    assert extra_of("icu") == "results" and extra_of("orjson") == "server"
    assert extra_of("reportlab") == "sheets" and extra_of("typer") is None
    # pydantic is imported by the server's own modules, so the server declares it.
    requires = metadata.metadata("pips").get_all("Requires-Dist") or []
    assert any(line.startswith("pydantic") and '"server"' in line for line in requires)


BLOCKER = f"""
import sys

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {REFUSED!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Refuse())
"""


def core_only(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "core_only.py"
    script.write_text(BLOCKER + code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PIPS_HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"},
        stdin=subprocess.DEVNULL,
        timeout=300,
    )


def command(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return core_only(tmp_path, f"from pips.cli import main\nmain({list(args)!r})\n")


@pytest.mark.process
def test_the_rules_records_and_simple_bots_need_no_extra(tmp_path: Path) -> None:
    done = core_only(
        tmp_path,
        """
import random
from pips import record
from pips.bots.base import make_bot
from pips.games.registry import all_games
from pips.sim import play_game

for spec in all_games():
    options = spec.example
    bots = [make_bot("greedy" if seat % 2 else "random") for seat in range(options.players)]
    match = play_game(spec, options, bots, seed=7)
    assert match.is_over, spec.name
    written = record.write_record(match, [f"p{seat}" for seat in range(options.players)])
    again = record.replay(written).match
    assert again.is_over and again.scores == match.scores, spec.name
loaded = sorted(name for name in sys.modules if name.split(".")[0] in REFUSED)
print("loaded:", loaded)
""".replace("REFUSED", repr(REFUSED)),
    )
    assert done.returncode == 0, done.stderr
    assert "loaded: []" in done.stdout


@pytest.mark.process
def test_the_command_plays_checks_and_replays_without_extras(tmp_path: Path) -> None:
    written = tmp_path / "games.json"
    simulated = command(
        tmp_path,
        *("simulate", "fido", "--players", "3", "--bots", "greedy,random,greedy"),
        *("--hands", "2", "--seed", "5", "--record", str(written)),
    )
    assert simulated.returncode == 0, simulated.stderr
    checked = command(tmp_path, "check", str(written))
    assert checked.returncode == 0, checked.stderr
    assert "2 record(s) OK" in checked.stdout
    replayed = command(tmp_path, "replay", str(written), "--text")
    assert replayed.returncode == 0 and "F-21" in replayed.stdout, replayed.stderr
    listed = command(tmp_path, "rules", "partnership")
    assert listed.returncode == 0 and "PT-" in listed.stdout


@pytest.mark.process
@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (("serve",), "server"),
        (("sheet", "fido", "--players", "4", "--out", "sheet.pdf"), "sheets"),
        (("simulate", "fido", "--players", "3", "--bots", "expert,greedy,greedy"), "bots"),
        (("ranking", "compute", "--month", "2026-01"), "results"),
    ],
)
def test_a_command_that_needs_a_part_names_what_to_install(
    tmp_path: Path, args: tuple[str, ...], extra: str
) -> None:
    done = command(tmp_path, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"pip install 'pips[{extra}]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "sheet.pdf").exists()


@pytest.mark.process
def test_the_rules_tests_load_no_server_database_or_browser_library() -> None:
    """Most test files need no server: the shared fixtures load its stack only when a
    test asks for a server, a site or a database."""
    code = (
        "import sys\n"
        "import tests.conftest, tests.test_tiles, tests.test_fido_examples, tests.test_record\n"
        "heavy = ('fastapi', 'sqlalchemy', 'httpx', 'websockets', 'playwright', 'numba')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
