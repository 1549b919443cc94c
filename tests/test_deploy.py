"""The container set (compose.yaml, deploy/) stays in step with the `pips serve` it
starts (docs/server.md, "Several server processes"). Containers cannot be built here, so
this checks what can go stale without them: every option it passes exists, and the
processes get what several of them need."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from pips.cli import app  # every command group registered

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
