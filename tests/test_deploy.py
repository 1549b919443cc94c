"""The container set (compose.yaml, deploy/) stays in step with the `pips serve` it
starts (docs/server.md, "Several server processes"). Containers cannot be built here, so
this checks what can go stale without them: the file is valid Compose (checked by
Debian's docker-compose, which needs no container engine for it), every option it
passes exists, and the processes get what several of them need. tests/test_proxy.py
runs deploy/nginx.conf."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
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


COMPOSE = shutil.which("docker-compose")


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
