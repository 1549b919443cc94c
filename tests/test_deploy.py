"""The container set (compose.yaml, deploy/) stays in step with the `pips serve` it
starts (docs/server.md, "Several server processes"): the file is valid Compose (checked
by Debian's docker-compose, which needs no container engine for it), every option it
passes exists, and the processes get what several of them need. tests/test_proxy.py
runs deploy/nginx.conf. The set started for real, on images built here, is
scripts/deploy-drill's (the last test here, skipped in the suite)."""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import ssl
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import httpx
import pytest
import yaml
from typer.testing import CliRunner

from pips.cli import app  # every command group registered

if TYPE_CHECKING:
    from tests.server_helpers import Server

ROOT = Path(__file__).resolve().parent.parent


def serve_options() -> set[str]:
    shown = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    return {word.strip(",") for word in shown.split() if word.startswith("--")}


def test_the_compose_set_starts_pips_with_options_it_has() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "pips", "proxy"} <= set(services)
    pips = services["pips"]
    command = pips["command"]
    assert command[:2] == ["pips", "serve"]
    known = serve_options()
    assert {word for word in command if word.startswith("--")} <= known
    environment = pips["environment"]
    # Several processes need PostgreSQL, the broker, and one session key among them.
    assert environment["PIPS_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert environment["PIPS_BROKER_URL"].startswith("redis://")
    assert "PIPS_SECRET" in environment
    assert pips["deploy"]["replicas"] >= 2
    # A process that stops on its own (one that could not reach the broker at its start,
    # in the drill) is started again: the site does not stay a process short.
    assert {name: service.get("restart") for name, service in services.items()} == {
        name: "unless-stopped" for name in services
    }
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD"))
    assert {word.strip('",[]') for word in cmd.split() if "--" in word} <= known


def test_the_proxy_passes_websockets_and_the_players_address() -> None:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for needed in (
        "proxy_set_header Upgrade $http_upgrade",
        "proxy_set_header X-Forwarded-For $remote_addr",
        "proxy_http_version 1.1",
        "ssl_certificate",
    ):
        assert needed in conf


COMPOSE = shutil.which("docker-compose")


@pytest.mark.process
@pytest.mark.skipif(
    COMPOSE is None and not os.environ.get("CI"),
    reason="needs docker-compose (scripts/test installs Debian's)",
)
def test_the_compose_file_is_valid_and_refuses_to_start_without_its_secrets(
    tmp_path: Path,
) -> None:
    assert COMPOSE is not None, "scripts/test installs docker-compose"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    secrets = {"POSTGRES_PASSWORD": "0f" * 16, "PIPS_SECRET": "a1" * 32}
    checked = subprocess.run(
        [COMPOSE, "--project-directory", str(ROOT), "-f", str(ROOT / "compose.yaml"), "config"],
        capture_output=True,
        text=True,
        env={**env, **secrets},
    )
    assert checked.returncode == 0, checked.stderr
    resolved = yaml.safe_load(checked.stdout)
    pips = resolved["services"]["pips"]
    assert pips["environment"]["PIPS_DATABASE_URL"] == (
        f"postgresql+psycopg://pips:{secrets['POSTGRES_PASSWORD']}@postgres/pips"
    )
    assert pips["environment"]["PIPS_SECRET"] == secrets["PIPS_SECRET"]
    mount = resolved["services"]["proxy"]["volumes"][0]  # "source:target:ro" in 1.29
    source = mount["source"] if isinstance(mount, dict) else mount.split(":")[0]
    assert Path(source) == ROOT / "deploy" / "nginx.conf"
    # Without a session key or a database password it does not start at all.
    for missing in secrets:
        refused = subprocess.run(
            [COMPOSE, "-f", str(ROOT / "compose.yaml"), "config"],
            capture_output=True,
            text=True,
            env={**env, **{k: v for k, v in secrets.items() if k != missing}},
        )
        assert refused.returncode != 0 and f"set {missing} in .env" in refused.stderr


# -- the deployment started for real (scripts/deploy-drill) --------------------------------

DRILL = os.environ.get("PIPS_DEPLOY_DRILL") == "1"
PROJECT = "pipsdrill"


class Front:
    """nginx in front of the set, over TLS with a throwaway certificate (a
    :class:`tests.server_helpers.Site`)."""

    def __init__(self, port: int, certificate: Path) -> None:
        self.port = port
        self.tls = ssl.create_default_context(cafile=str(certificate))

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"wss://127.0.0.1:{self.port}"


def compose(*arguments: str, env: dict[str, str], check: bool = True) -> str:
    done = subprocess.run(
        ["podman-compose", "-p", PROJECT, "-f", str(ROOT / "compose.yaml"), *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0 or not check, done.stdout + done.stderr
    return done.stdout


def podman(*arguments: str, check: bool = True, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["podman", *arguments], capture_output=True, text=True, timeout=300, input=stdin
    )
    assert done.returncode == 0 or not check, done.stdout + done.stderr
    return done.stdout


def psql(query: str) -> list[str]:
    shown = podman("exec", f"{PROJECT}_postgres_1", "psql", "-U", "pips", "-At", "-c", query)
    return [line for line in shown.splitlines() if line]


def stored(table_id: str) -> list[tuple[int, int, dict[str, Any]]]:
    """The table's moves in the deployment's database."""
    rows = psql(
        "SELECT json_build_array(number, seat, move) FROM moves "
        f"WHERE table_id = '{table_id}' ORDER BY number"
    )
    return [(int(n), int(s), m) for n, s, m in map(json.loads, rows)]


def ask(container: str, path: str) -> str | None:
    """What a pips process answers on its own port (``None``: not 200, or nothing)."""
    done = subprocess.run(
        ["podman", "exec", container, "python", "-c",
         f"import urllib.request as u; print(u.urlopen('http://127.0.0.1:8000{path}').read().decode())"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done.stdout if done.returncode == 0 else None


def healthy(front: Front) -> bool:
    try:
        return httpx.get(front.url + "/api/tables", verify=front.tls, timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.process
@pytest.mark.skipif(not DRILL, reason="scripts/deploy-drill builds the images and runs this")
def test_the_deployment_started_for_real(tmp_path: Path) -> None:
    """compose.yaml's set on podman: a game through nginx over TLS, a pips container
    killed during play (no heard move lost, the table goes on), a backup restored
    through the containers, and down."""
    from tests.cluster_helpers import Roamer, check_every_acknowledged_move_stored
    from tests.server_helpers import Browser, free_port, wait_for

    tls = tmp_path / "tls"
    tls.mkdir()
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(tls / "privkey.pem"), "-out", str(tls / "fullchain.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    https = free_port()
    env = {
        **os.environ,
        "POSTGRES_PASSWORD": secrets.token_hex(16),
        "PIPS_SECRET": secrets.token_hex(32),
        "PIPS_HTTP_PORT": str(free_port()),
        "PIPS_HTTPS_PORT": str(https),
        "PIPS_TLS_DIR": str(tls),
    }
    front = Front(https, tls / "fullchain.pem")
    compose("down", "-v", env=env, check=False)  # what an interrupted run left
    try:
        # podman-compose starts in order but waits for no health check: the database
        # and the broker first, then the rest.
        compose("up", "-d", "postgres", "redis", env=env)
        wait_for(lambda: podman("exec", f"{PROJECT}_postgres_1", "pg_isready", "-U", "pips",
                                check=False).endswith("accepting connections\n"), 120)  # fmt: skip
        compose("up", "-d", "--no-build", env=env)
        containers = [
            name for name in podman("ps", "--format", "{{.Names}}").split()
            if name.startswith(f"{PROJECT}_pips_")
        ]  # fmt: skip
        assert len(containers) == 3
        # Every process ready (migrated, joined the others), then nginx in front.
        try:
            wait_for(lambda: all(ask(name, "/readyz") is not None for name in containers), 180)
        except AssertionError:
            states = {name: podman("inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}"
                                   " restarts {{.RestartCount}}", name, check=False).strip()
                      for name in containers}  # fmt: skip
            raise AssertionError(f"not ready in 180 s: {states} (see compose.log)") from None
        wait_for(lambda: healthy(front), 60)
        assert httpx.get(front.url + "/metrics", verify=front.tls).status_code == 403

        # A game through nginx: two players and a bot, to 1,000 points: long enough that
        # it is still being played when its process is killed (to 100, on a busy machine
        # the match once ended while the test looked for its process, and the table had
        # no more moves for another process to take over).
        ann, bob = Browser(front, "Ann"), Browser(front, "Bob")
        table_id = ann.create(
            "family",
            {"players": 3, "target": 1000},
            [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}],
        )
        assert bob.post(f"/api/tables/{table_id}/join").status_code == 200
        # The roamers reconnect to the one front (they read a node's url, ws_url, tls, port).
        fronts = cast("list[Server]", [front])
        players = [Roamer(ann, fronts, table_id, True, 0), Roamer(bob, fronts, table_id, True, 0)]
        for roamer in players:
            roamer.start()
        wait_for(lambda: len(stored(table_id)) >= 6, 120)

        # The container that holds the table is killed during play.
        owner = psql(f"SELECT owner FROM table_leases WHERE table_id = '{table_id}'")[0]
        nodes = {json.loads(ask(name, "/healthz") or "{}")["node"]: name for name in containers}
        made = len(stored(table_id))
        podman("kill", "--signal", "KILL", nodes[owner])
        # The table goes on, at another process.
        wait_for(lambda: len(stored(table_id)) >= made + 6 or any(r.over for r in players), 180)
        for roamer in players:
            assert roamer.error is None, repr(roamer.error)
        # Every move a player heard acknowledged is stored: none lost.
        check_every_acknowledged_move_stored(lambda: stored(table_id), players)
        later = psql(f"SELECT owner FROM table_leases WHERE table_id = '{table_id}'")
        assert later and later[0] != owner

        # Back up through a container, restore into a new database, compare.
        alive = next(name for name in containers if name != nodes[owner])
        podman("exec", alive, "pips", "admin", "backup", "/tmp/site.gz")
        psql("CREATE DATABASE restored")
        restored = '--database "${PIPS_DATABASE_URL%/pips}/restored"'
        podman("exec", alive, "sh", "-c", f"pips admin restore /tmp/site.gz {restored}")
        podman("cp", f"{alive}:/tmp/site.gz", str(tmp_path / "site.gz"))
        again = subprocess.run(
            ["podman", "exec", alive, "sh", "-c", f"pips admin export - {restored}"],
            capture_output=True, check=True, timeout=300,
        ).stdout  # fmt: skip
        from pips.store import site

        with (tmp_path / "site.gz").open("rb") as backed_up:
            assert list(site.read(io.BytesIO(again)))[1:] == list(site.read(backed_up))[1:]
        assert any(line == [table_id] or (isinstance(line, list) and table_id in line)
                   for line in site.read(io.BytesIO(again)))  # fmt: skip
    finally:
        for roamer in locals().get("players", []):
            roamer.grant(0)
        logs = compose("logs", env=env, check=False)
        compose("down", "-v", env=env, check=False)
        (tmp_path / "compose.log").write_text(logs)
