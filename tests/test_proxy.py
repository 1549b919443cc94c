"""deploy/nginx.conf, run for real: Debian's nginx on 127.0.0.1 in front of two
`pips serve --broker` processes started with the options compose.yaml gives them
(issue 21, docs/server.md "Several server processes"). Containers cannot run here; this
is the part of the container set that can, with only the addresses, ports and
certificate paths rewritten for a test."""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cluster_helpers import cluster, logs, needs_cluster, node_id
from tests.server_helpers import Browser, Player, Server, free_port, wait_for

ROOT = Path(__file__).resolve().parent.parent
NGINX = os.environ.get("PIPS_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"

pytestmark = [
    needs_cluster,
    pytest.mark.process,
    pytest.mark.skipif(
        not Path(NGINX).exists() and not os.environ.get("CI"),
        reason="needs nginx (scripts/test installs Debian's nginx)",
    ),
]

COMPOSE_OPTIONS = ("--https-cookies",)
"""What compose.yaml passes to every process besides the broker and the address (the
test processes trust 127.0.0.1, the proxy's address here, for X-Forwarded-For)."""


class Proxy:
    """nginx with deploy/nginx.conf, on free ports of 127.0.0.1, in front of ``nodes``;
    a ``Browser`` takes it for a server (HTTPS and WSS with a certificate of its own)."""

    def __init__(self, home: Path, nodes: list[Server]) -> None:
        self.home = home
        self.port = free_port()
        self.plain_port = free_port()
        tls = home / "tls"
        tls.mkdir(parents=True)
        subprocess.run(
            [
                *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"),
                *("-keyout", str(tls / "privkey.pem"), "-out", str(tls / "fullchain.pem")),
                *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            ],
            check=True,
            capture_output=True,
        )
        self.tls = ssl.create_default_context(cafile=str(tls / "fullchain.pem"))
        site = (ROOT / "deploy" / "nginx.conf").read_text()
        upstreams = "\n    ".join(
            f"server 127.0.0.1:{node.port} max_fails=1 fail_timeout=2s;" for node in nodes
        )
        for pattern, replacement, count in (
            (r"server pips:8000 [^;]*;", upstreams, 1),
            (r"listen 80;", f"listen 127.0.0.1:{self.plain_port};", 1),
            (r"listen 443 ", f"listen 127.0.0.1:{self.port} ", 1),
            (r"/etc/nginx/tls/", f"{tls}/", 2),  # the certificate and its key
        ):
            site, found = re.subn(pattern, replacement, site)
            assert found == count, f"deploy/nginx.conf no longer has {pattern!r}"
        (home / "site.conf").write_text(site)
        temp = " ".join(
            f"{kind}_temp_path {home / kind};" for kind in ("client_body", "proxy", "fastcgi")
        )
        (home / "nginx.conf").write_text(
            f"daemon off;\nworker_processes 1;\npid {home / 'nginx.pid'};\n"
            f"error_log {home / 'error.log'} warn;\nevents {{ worker_connections 512; }}\n"
            f"http {{\n  access_log {home / 'access.log'};\n"
            f"  {temp} uwsgi_temp_path {home / 'uwsgi'}; scgi_temp_path {home / 'scgi'};\n"
            f"  include {home / 'site.conf'};\n}}\n"
        )
        self.process = subprocess.Popen(
            [NGINX, "-p", str(home), "-c", str(home / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=open(home / "nginx.out", "ab"),  # noqa: SIM115 - lives with the process
        )
        try:
            wait_for(lambda: self.answers() or self.process.poll() is not None, 20)
        finally:
            if self.process.poll() is not None:
                raise RuntimeError("nginx did not start: " + self.errors())

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"wss://127.0.0.1:{self.port}"

    def answers(self) -> bool:
        try:
            return httpx.get(self.url + "/healthz", verify=self.tls, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def errors(self) -> str:
        return "".join(
            path.read_text()
            for path in (self.home / "nginx.out", self.home / "error.log")
            if path.exists()
        )

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


@pytest.fixture
def behind_a_proxy(tmp_path: Path) -> Iterator[tuple[Proxy, list[Server]]]:
    _, nodes = cluster(tmp_path, 2, extra=COMPOSE_OPTIONS)
    proxy = None
    try:
        proxy = Proxy(tmp_path / "proxy", nodes)
        yield proxy, nodes
    finally:
        if proxy is not None:
            proxy.stop()
        for node in nodes:
            node.stop()


def test_players_behind_the_proxy_play_a_match_over_tls_and_websockets(
    behind_a_proxy: tuple[Proxy, list[Server]],
) -> None:
    proxy, nodes = behind_a_proxy
    # Plain HTTP is sent to HTTPS, path and query kept.
    plain = httpx.get(f"http://127.0.0.1:{proxy.plain_port}/lobby?x=1")
    assert plain.status_code == 301
    assert plain.headers["location"] == "https://127.0.0.1/lobby?x=1"
    # Round robin: both processes answer through the one address.
    seen = {
        str(httpx.get(proxy.url + "/healthz", verify=proxy.tls).json()["node"]) for _ in range(6)
    }
    assert seen == {node_id(node) for node in nodes}
    # The metrics are for the inside of the network only.
    assert httpx.get(proxy.url + "/metrics", verify=proxy.tls).status_code == 403
    assert httpx.get(nodes[0].url + "/metrics").status_code == 200
    # The session cookie is HTTPS-only, as compose.yaml runs the processes.
    ann = Browser(proxy, "Ann")
    assert any(cookie.secure for cookie in ann.http.cookies.jar)
    bob = Browser(proxy, "Bob")
    table_id = ann.create(
        "family",
        {"players": 3, "target": 30},
        [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}],
    )
    assert bob.post(f"/api/tables/{table_id}/join").status_code == 200
    # Each websocket upgrade goes through nginx to either process.
    players = [Player(ann, table_id), Player(bob, table_id)]
    for player in players:
        player.start()
    for player in players:
        player.join(120)
        assert player.error is None, f"{player.error!r}\n{logs(nodes)}\n{proxy.errors()}"
        states = [m for m in player.messages if m["type"] == "state"]
        assert states and states[-1]["match"]["over"]
        # This simple client answers every state it is sent, and a table sends its
        # state again when a seat arrives: that second answer alone may be refused, as
        # not the seat's turn or, when the others have played meanwhile and the turn is
        # the seat's again (its answer relayed between processes), as an answer to a
        # list of moves no longer offered.
        errors = {m["message"] for m in player.messages if m["type"] == "error"}
        assert errors <= {"it is not your turn", "that move list is out of date"}, errors


def test_requests_go_on_while_a_process_goes_away(
    behind_a_proxy: tuple[Proxy, list[Server]],
) -> None:
    """A rolling restart as the proxy sees it: the stopped process refuses connections
    and nginx tries the other one (proxy_next_upstream), so no request fails."""
    proxy, nodes = behind_a_proxy
    nodes[0].stop()
    answers = [httpx.get(proxy.url + "/api/tables", verify=proxy.tls) for _ in range(20)]
    assert [a.status_code for a in answers] == [200] * 20, proxy.errors()
    nodes[0].start()
    deadline = time.monotonic() + 10
    seen: set[str] = set()
    while time.monotonic() < deadline and len(seen) < 2:
        seen.add(str(httpx.get(proxy.url + "/healthz", verify=proxy.tls).json()["node"]))
    assert len(seen) == 2, "the restarted process gets requests again"
