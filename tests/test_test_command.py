"""The README's test command says what it installs and starts, and stops the servers
it started: checked on its scripts (the command itself is what runs these tests)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def script(name: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / name), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **env},
    )


def test_the_readme_names_every_package_and_server_the_test_command_uses() -> None:
    command = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    packages = set(re.findall(r"missing\+=\(([\w-]+)\)", command))
    assert {"chromium", "postgresql", "redis-server", "tmux"} <= packages
    for package in packages:
        assert f"`{package}`" in readme, package
    assert "127.0.0.1:55432" in readme and "127.0.0.1:56379" in readme
    assert "PIPS_KEEP_SERVERS=1" in readme and "PIPS_KEEP_SERVERS" in command
    assert "trap stop_started EXIT" in command  # stopped when the tests fail too


@pytest.mark.process
@pytest.mark.skipif(
    subprocess.run(["which", "redis-server"], capture_output=True).returncode != 0,
    reason="scripts/test installs redis-server",
)
def test_the_test_redis_is_started_and_stopped_again(tmp_path: Path) -> None:
    env = {"PIPS_TEST_REDIS_PORT": str(free_port()), "PIPS_TEST_REDIS_DIR": str(tmp_path / "r")}
    assert script("stop-redis", "--running", env=env).returncode != 0
    started = script("start-redis", env=env)
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == f"redis://127.0.0.1:{env['PIPS_TEST_REDIS_PORT']}/0"
    assert script("stop-redis", "--running", env=env).returncode == 0
    assert script("stop-redis", env=env).returncode == 0
    assert script("stop-redis", "--running", env=env).returncode != 0
    assert not (tmp_path / "r").exists()


@pytest.mark.process
@pytest.mark.skipif(not Path("/usr/lib/postgresql").exists(), reason="scripts/test installs it")
def test_the_test_postgresql_is_started_and_stopped_again(tmp_path: Path) -> None:
    home = Path("/tmp") / f"pips-test-pg-{tmp_path.name}"  # short: a socket lives in it
    env = {"PIPS_TEST_POSTGRES_PORT": str(free_port()), "PIPS_TEST_POSTGRES_DIR": str(home)}
    try:
        assert script("stop-postgres", "--running", env=env).returncode != 0
        started = script("start-postgres", env=env)
        assert started.returncode == 0, started.stderr
        port = env["PIPS_TEST_POSTGRES_PORT"]
        assert started.stdout.strip() == f"postgresql://pips:pips@127.0.0.1:{port}/postgres"
        assert script("stop-postgres", "--running", env=env).returncode == 0
        assert script("stop-postgres", env=env).returncode == 0
        assert script("stop-postgres", "--running", env=env).returncode != 0
        assert not home.exists()
    finally:
        script("stop-postgres", env=env)
