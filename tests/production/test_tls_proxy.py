"""Behind a real reverse proxy with TLS: Debian's nginx, configured by the
repository's own deploy/nginx.conf with a self-signed certificate, in front of the real
server (gunicorn, INSPECTOR_ENV=production, TRUSTED_PROXIES=1) on loopback. The session
cookie is Secure; rate limits count the client's address as the proxy saw it (a forged
X-Forwarded-For changes nothing; two clients are two counts); the QR links printed with
PUBLIC_BASE_URL open through it; plain http is sent to https; the field app's service
worker installs over https in Chromium. Each answer carries exactly one HSTS header (nginx's);
a request naming another site in Host gets no answer (444, the default server), and a TLS
handshake for an unknown name (or none: an IP address) is refused."""
from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shutil
import socket
import ssl
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from inspector.extensions import db
from tests import factories
from tests.support.config import CHROMIUM, CHROMIUM_ARGS
from tests.support.processes import free_port, stop, wait_port

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx.conf"
_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"|name="csrf-token" content="([^"]+)"')


def nginx_binary() -> str:
    """Debian's nginx-light, installed when missing (TESTING.md: as root, once)."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)
    if found:
        return found
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "install", "-y", "-qq", "nginx-light"], env=env,
                   capture_output=True, timeout=600)
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(found).exists():
        pytest.fail("nginx is missing and could not be installed (apt-get install nginx-light)")
    return found


def site_config(https: int, http_port: int, upstream: int, cert: Path, key: Path) -> str:
    """deploy/nginx.conf with this test's ports and certificate: every replaced line must be
    there, so the file under test is the one in the repository."""
    text = SITE.read_text(encoding="utf-8")
    swaps = {
        "server 127.0.0.1:8000;": f"server 127.0.0.1:{upstream};",
        "    listen 80;\n": f"    listen 127.0.0.1:{http_port};\n",
        "    listen [::]:80;\n": "",
        "    listen 443 ssl http2;\n": f"    listen 127.0.0.1:{https} ssl http2;\n",
        "    listen [::]:443 ssl http2;\n": "",
        "    listen 80 default_server;\n": f"    listen 127.0.0.1:{http_port} default_server;\n",
        "    listen [::]:80 default_server;\n": "",
        "    listen 443 ssl http2 default_server;\n":
            f"    listen 127.0.0.1:{https} ssl http2 default_server;\n",
        "    listen [::]:443 ssl http2 default_server;\n": "",
        "/etc/letsencrypt/live/fiscaliza.suacidade.mt.gov.br/fullchain.pem": str(cert),
        "/etc/letsencrypt/live/fiscaliza.suacidade.mt.gov.br/privkey.pem": str(key),
        "server_name fiscaliza.suacidade.mt.gov.br;": "server_name 127.0.0.1 localhost;",
    }
    for old, new in swaps.items():
        assert old in text, f"deploy/nginx.conf no longer has {old!r}"
        text = text.replace(old, new)
    return text


@pytest.fixture
def proxied(app, schema, tmp_path):
    """gunicorn on loopback and nginx with TLS in front; yields (https port, http port,
    the CA file to trust, the app's config)."""
    nginx = nginx_binary()
    work = tmp_path / "proxy"
    work.mkdir()
    cert, key = work / "cert.pem", work / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "7",
                    "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key),
                    "-out", str(cert)], check=True, capture_output=True)
    upstream, https, plain = free_port(), free_port(), free_port()
    base = f"https://localhost:{https}"   # SNI: an IP literal sends no name
    env = dict(os.environ, INSPECTOR_ENV="production", DATABASE_URL=schema,
               SECRET_KEY=secrets.token_hex(32), PUBLIC_BASE_URL=base, TRUSTED_PROXIES="1",
               EVIDENCE_DIR=str(work / "evidence"), LOG_LEVEL="WARNING")
    gunicorn = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "--preload", "--workers", "1",
         "--bind", f"127.0.0.1:{upstream}", "--forwarded-allow-ips", "127.0.0.1",
         "inspector:create_app()"], env=env, cwd=ROOT, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=open(work / "gunicorn.log", "wb"))
    (work / "site.conf").write_text(site_config(https, plain, upstream, cert, key))
    (work / "nginx.conf").write_text(f"""
user root;
worker_processes 1;
pid {work}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    access_log {work}/access.log;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy_temp;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    include {work}/site.conf;
}}
""")
    proxy = subprocess.Popen([nginx, "-c", str(work / "nginx.conf"), "-e",
                              str(work / "error.log"), "-g", "daemon off;"],
                             start_new_session=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    try:
        wait_port(upstream, gunicorn, "gunicorn")
        wait_port(https, proxy, "nginx")
        yield {"https": https, "http": plain, "ca": cert, "base": base, "env": env}
    finally:
        stop(proxy, gunicorn)


class Browser:
    """http.client over TLS through the proxy, trusting only the test's certificate, from a
    chosen loopback address, keeping the session cookie."""

    def __init__(self, port: int, ca: Path, source: str = "127.0.0.1"):
        self.port, self.source = port, source
        self.context = ssl.create_default_context(cafile=str(ca))
        self.cookie = ""

    def request(self, method: str, path: str, form: dict | None = None, headers=None):
        conn = http.client.HTTPSConnection("localhost", self.port, context=self.context,
                                           timeout=30, source_address=(self.source, 0))
        h = dict(headers or {})
        body = None
        if form is not None:
            body = urlencode(form).encode()
            h["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookie:
            h["Cookie"] = self.cookie
        conn.request(method, path, body=body, headers=h)
        r = conn.getresponse()
        data = r.read()
        cookies = [v for k, v in r.getheaders() if k.lower() == "set-cookie"]
        for c in cookies:
            if c.startswith("inspector_session="):
                self.cookie = c.split(";", 1)[0]
        conn.close()
        return r.status, dict(r.getheaders()), data.decode(errors="replace"), cookies

    def login(self, username: str, password: str, forged: str | None = None):
        status, _, page, _ = self.request("GET", "/entrar")
        token = next(a or b for a, b in _TOKEN.findall(page))
        extra = {"X-Forwarded-For": forged} if forged else {}
        return self.request("POST", "/entrar", {"username": username, "password": password,
                                                "csrf_token": token}, extra)


def hsts_headers(port: int, ca: Path, path: str) -> list[str]:
    """Every Strict-Transport-Security value of one answer through the proxy."""
    conn = http.client.HTTPSConnection("localhost", port, timeout=30,
                                       context=ssl.create_default_context(cafile=str(ca)))
    conn.request("GET", path)
    r = conn.getresponse()
    r.read()
    conn.close()
    return [v for k, v in r.getheaders() if k.lower() == "strict-transport-security"]


def unknown_host(port: int, ca: Path | None) -> int:
    """A request naming another site in Host (the certificate's name in TLS): its status."""
    conn = (http.client.HTTPSConnection("localhost", port, timeout=10,
                                        context=ssl.create_default_context(cafile=str(ca)))
            if ca else http.client.HTTPConnection("127.0.0.1", port, timeout=10))
    try:
        conn.request("GET", "/transparencia/dados", headers={"Host": "evil.example"})
        return conn.getresponse().status
    finally:
        conn.close()


def test_behind_nginx_with_tls(app, proxied, playwright_instance):
    with app.app_context():
        factories.user("agent", "tapurah", username="agente.tls")
        v = factories.vehicle("tapurah", "mototaxi")
        factories.licence(v)
        db.session.commit()

    # the session cookie only travels over https
    ok = Browser(proxied["https"], proxied["ca"])
    status, headers, _, cookies = ok.login("agente.tls", factories.PASSWORD)
    assert status == 302, (status, cookies)
    session = next(c for c in cookies if c.startswith("inspector_session="))
    assert "; Secure" in session and "; HttpOnly" in session
    assert headers["Strict-Transport-Security"] == "max-age=31536000"
    assert ok.request("GET", "/inicio")[0] == 200
    # exactly one HSTS header (nginx's; the app sends none), on a page and on a 404
    for path in ("/entrar", "/transparencia/dados/tapurah.json", "/nao-existe"):
        assert hsts_headers(proxied["https"], proxied["ca"], path) == ["max-age=31536000"], path

    # a name the site does not serve gets no answer at all (444), over https and http, and a
    # TLS handshake for an unknown name is refused before any certificate is shown
    for port, tls in ((proxied["https"], True), (proxied["http"], False)):
        with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
            unknown_host(port, proxied["ca"] if tls else None)
    raw = ssl.create_default_context()
    raw.check_hostname, raw.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", proxied["https"]), timeout=10) as sock:
        with pytest.raises(ssl.SSLError, match="UNRECOGNIZED_NAME|unrecognized name"):
            raw.wrap_socket(sock, server_hostname="evil.example")

    # rate limits count the address the proxy saw: forging X-Forwarded-For does not give a
    # new count, another client has its own
    attacker = Browser(proxied["https"], proxied["ca"], source="127.0.0.3")
    codes = [attacker.login("agente.tls", "senha-errada-123", forged=f"198.51.100.{i}")[0]
             for i in range(11)]
    assert codes[:10] == [401] * 10 and codes[10] == 429, codes   # refused, then limited
    other = Browser(proxied["https"], proxied["ca"], source="127.0.0.4")
    assert other.login("agente.tls", factories.PASSWORD)[0] == 302

    # the QR printed with PUBLIC_BASE_URL opens through the proxy
    flask = str(Path(sys.executable).parent / "flask")
    run = dict(cwd=ROOT, env=proxied["env"], capture_output=True, text=True, timeout=120)
    assert subprocess.run([flask, "--app", "inspector", "credentials", "issue", "--town",
                           "tapurah"], **run).returncode == 0
    listed = subprocess.run([flask, "--app", "inspector", "credentials", "list", "--town",
                             "tapurah", "--json"], **run)
    url = json.loads(listed.stdout)["credentials"][0]["url"]
    assert url.startswith(proxied["base"] + "/v/")
    status, _, page, _ = Browser(proxied["https"], proxied["ca"]).request("GET",
                                                                          urlsplit(url).path)
    assert status == 200 and "REGULAR" in page

    # plain http only redirects to https (port 443 in production: $host drops the port)
    conn = http.client.HTTPConnection("127.0.0.1", proxied["http"], timeout=10)
    conn.request("GET", "/campo?x=1")
    r = conn.getresponse()
    assert r.status == 301 and r.getheader("Location") == "https://127.0.0.1/campo?x=1"
    conn.close()

    # the field app's service worker installs over https (Chromium trusts the certificate
    # only with --ignore-certificate-errors: TESTING.md)
    browser = playwright_instance.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS + ["--ignore-certificate-errors"])
    try:
        page = browser.new_context(ignore_https_errors=True).new_page()
        page.goto(f"{proxied['base']}/campo")
        state = None
        for _ in range(50):   # the app may navigate (sign-in) while the worker installs
            try:
                state = page.evaluate("""async () => {
                    const reg = await navigator.serviceWorker.ready;
                    return [location.protocol, reg.active && reg.active.state, reg.scope];
                }""")
                break
            except Exception:  # noqa: BLE001 - "Execution context was destroyed"
                page.wait_for_load_state()
        assert state is not None
        assert state[0] == "https:" and state[1] in ("activating", "activated")
        assert state[2] == proxied["base"] + "/"
    finally:
        browser.close()
