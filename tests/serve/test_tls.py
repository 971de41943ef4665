"""``sidebet serve`` behind TLS and a proxy, through real processes: HTTPS served by the
server itself with a self-signed certificate made by ``cryptography``, HSTS on every
HTTPS answer, a certificate without its key refused in one line; only the trusted
proxies' forwarded addresses count for the sign-in limits."""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from .harness import OPERATOR_PASSWORD, SIGNING_KEY, Api, Server, database_url, free_port

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

HSTS = "max-age=31536000; includeSubDomains"


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and ``localhost``, signed by its own key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"),
                x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``sidebet serve`` speaking HTTPS on a free port: its URL and its certificate."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = self_signed(folder)
    port = free_port()
    env = {**os.environ, "SIDEBET_SIGNING_KEY": str(SIGNING_KEY),
           "SIDEBET_OPERATOR_PASSWORD": OPERATOR_PASSWORD, "SIDEBET_TLS_CERT": str(cert),
           "SIDEBET_TLS_KEY": str(key)}
    log = (folder / "serve.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "sidebet", "serve", "--database-url",
                             database_url(folder), "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=log)
    url = f"https://127.0.0.1:{port}"
    trust = ssl.create_default_context(cafile=str(cert))
    try:
        for _ in range(600):
            assert proc.poll() is None, (folder / "serve.log").read_text()
            try:
                if httpx.get(url + "/api/house", verify=trust, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            subprocess.run(["sleep", "0.1"], check=True)
        else:
            pytest.fail("the TLS server did not start")
        yield url, cert
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_the_server_speaks_tls_and_sends_hsts(tls_server: tuple[str, Path]) -> None:
    url, cert = tls_server
    with httpx.Client(base_url=url, verify=ssl.create_default_context(cafile=str(cert)),
                      timeout=30) as http:
        house = http.get("/api/house")
        assert house.status_code == 200 and house.headers["strict-transport-security"] == HSTS
        made = http.post("/api/accounts", json={"name": "tls-ann", "password": "pw-tls-ann"})
        assert made.status_code == 201 and made.headers["strict-transport-security"] == HSTS
        token = http.post("/api/tokens", json={"name": "tls-ann", "password": "pw-tls-ann"})
        assert token.status_code == 201
    with pytest.raises(httpx.HTTPError):  # not trusted without the house's certificate
        httpx.get(url + "/api/house", timeout=5)
    with pytest.raises(httpx.HTTPError):  # no plain HTTP on that port
        httpx.get(url.replace("https", "http") + "/api/house", timeout=5)


def test_a_certificate_without_its_key_is_refused_in_one_line(tmp_path: Path) -> None:
    cert, _ = self_signed(tmp_path)
    env = {**os.environ, "SIDEBET_SIGNING_KEY": str(SIGNING_KEY),
           "SIDEBET_TLS_CERT": str(cert), "SIDEBET_TLS_KEY": str(tmp_path / "nokey.pem")}
    r = subprocess.run([sys.executable, "-m", "sidebet", "serve", "--database-url",
                        f"sqlite:///{tmp_path / 'x.db'}", "--port", "0"], env=env,
                       capture_output=True, text=True, timeout=120)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "TLS certificate" in lines[0], r.stderr


def test_only_trusted_proxies_forward_addresses(tmp_path: Path) -> None:
    """With no trusted proxy, X-Forwarded-For is ignored: guesses that claim other
    addresses still come from the sender's; with the loopback proxy trusted (the default)
    they are the forwarded client's, and X-Forwarded-Proto: https brings HSTS."""
    env = {"SIDEBET_SIGNIN_ACCOUNT_FAILURES": "3", "SIDEBET_SIGNIN_LOCKOUT": "60"}
    direct = Server(database_url(tmp_path), env={**env, "SIDEBET_TRUSTED_PROXIES": "[]"})
    proxied = Server(database_url(tmp_path), env=env)
    for srv in (direct, proxied):
        srv.start()
    try:
        for srv, locked in ((direct, True), (proxied, False)):
            Api.player(srv.url, "px-ann", deposit=None)
            for n in range(3):
                r = httpx.post(srv.url + "/api/tokens", json={"name": "px-ann", "password": "wrong-password"},
                               headers={"X-Forwarded-For": f"198.51.100.{n + 1}"})
                assert r.status_code == 401
            again = httpx.post(srv.url + "/api/tokens", json={"name": "px-ann", "password": "wrong-password"},
                               headers={"X-Forwarded-For": "198.51.100.1"})
            assert (again.status_code == 429) is locked, (srv.env, again.text)
            https = httpx.get(srv.url + "/api/house", headers={"X-Forwarded-Proto": "https"})
            assert (https.headers.get("strict-transport-security") == HSTS) is not locked
            assert "strict-transport-security" not in httpx.get(srv.url + "/api/house").headers
    finally:
        for srv in (direct, proxied):
            srv.stop()
