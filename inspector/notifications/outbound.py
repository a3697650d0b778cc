"""Where the server may send a Web Push: the only outbound connection whose address a user
chooses (a browser's subscription endpoint).

Two walls. `check_endpoint` reads the endpoint with the parser the HTTP client itself uses
(urllib3's `parse_url`, through requests' own preparation), so the host checked is the host
connected to: `https://127.0.0.1\\.fcm.googleapis.com/x` is 127.0.0.1 to the client, whatever
another parser says. The endpoint must be plain (no backslash, `@`, `%`, space or non-ASCII
character before the path), https on the default port, and its host one of the known push
services by exact suffix (`PUSH_SERVICE_HOSTS`), lower-case, no trailing dot, no IP literal.
Then `session()` gives the sender a requests session whose every connection resolves the
host itself and refuses, before connecting, any address that is not public: loopback,
private, link-local (169.254.169.254, the cloud metadata service), shared, multicast,
reserved, unspecified, and the same hidden in IPv6 (IPv4-mapped, 6to4, Teredo, fd00:ec2::254).
The check is on the address connected to, so a name that resolved to a public address when
the subscription was saved and to 127.0.0.1 when the push is sent (DNS rebinding) is refused.
No proxy from the environment, no redirect.

Tests post to a fake push service on 127.0.0.1 (tests/support/push.py): with
`PUSH_ALLOW_HTTP_LOOPBACK` (off by default, set only by test code, refused by the production
start) `http:` on a loopback literal is accepted and loopback addresses only are let through.
"""
from __future__ import annotations

import re
import socket
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network

import requests
from flask import current_app
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import LocationParseError
from urllib3.util import parse_url

# Where browsers' push services live (Chrome/Edge via FCM, Firefox, Safari, Windows).
PUSH_SERVICE_HOSTS = ("fcm.googleapis.com", "android.googleapis.com",
                      "updates.push.services.mozilla.com", "push.services.mozilla.com",
                      "push.apple.com", "notify.windows.com")
MAX_ENDPOINT = 2000
REFUSED = ("Serviço de notificações não reconhecido: use um navegador atualizado (Chrome, "
           "Firefox, Safari, Edge).")
# Addresses no push service has, named apart because `is_global` alone misses some.
_BLOCKED = tuple(ip_network(n) for n in (
    "169.254.169.254/32", "fd00:ec2::254/128",   # cloud metadata (AWS, GCP, Azure; IPv6)
    "100.64.0.0/10", "192.0.0.0/24", "198.18.0.0/15",   # shared, IETF, benchmarking
    "64:ff9b::/96", "64:ff9b:1::/48"))   # NAT64: an IPv4 inside
_HOST = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$")
# Before the path: what no browser's endpoint has and parsers read differently.
_AUTHORITY_TRAPS = re.compile(r"[\\@%\s\x00-\x1f\x7f-\U0010ffff\[\]]")


class RefusedDestination(Exception):
    """An endpoint or an address the server will not send to; `str()` says why (English,
    for the log); `REFUSED` is what the person sees."""


def test_loopback() -> bool:
    """Whether this app may post to a fake push service on loopback (tests only)."""
    cfg = current_app.config
    return bool(cfg.get("PUSH_ALLOW_HTTP_LOOPBACK")) and cfg.get("INSPECTOR_ENV") != "production"


def _hosts() -> tuple[str, ...]:
    return tuple(h.lower().rstrip(".") for h in
                 current_app.config.get("PUSH_SERVICE_HOSTS", PUSH_SERVICE_HOSTS))


def public_address(ip: IPv4Address | IPv6Address) -> bool:
    """Whether an address is on the public internet (not loopback, private, link-local,
    shared, multicast, reserved, metadata), looking inside IPv6 forms that carry an IPv4."""
    if isinstance(ip, IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is not None and not public_address(inner):
            return False
    if any(ip in net for net in _BLOCKED if net.version == ip.version):
        return False
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_loopback
                                 or ip.is_link_local or ip.is_private or ip.is_unspecified)


def allowed_address(address: str, loopback_too: bool) -> bool:
    """Whether the sender may connect to this resolved address."""
    ip = ip_address(address.split("%", 1)[0])   # an IPv6 zone (fe80::1%eth0) is link-local
    return public_address(ip) or (loopback_too and ip.is_loopback)


def check_endpoint(endpoint: str) -> str:
    """The endpoint as the HTTP client will read it, when the server may post there;
    RefusedDestination otherwise."""
    endpoint = str(endpoint or "")
    if not endpoint or len(endpoint) > MAX_ENDPOINT:
        raise RefusedDestination("endpoint missing or too long")
    loopback = test_loopback()
    scheme, sep, rest = endpoint.partition("://")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    if not sep or (_AUTHORITY_TRAPS.search(authority) and not (
            loopback and re.fullmatch(r"\[::1\](:\d+)?", authority))):
        raise RefusedDestination(f"endpoint authority not plain: {authority[:100]!r}")
    if any(c in endpoint for c in "\\\x00\r\n\t "):
        raise RefusedDestination("endpoint has a backslash, a control character or a space")
    try:
        url = parse_url(requests.Request("POST", endpoint).prepare().url)
    except (LocationParseError, requests.RequestException, ValueError) as e:
        raise RefusedDestination(f"endpoint not a URL: {e}") from None
    host = (url.host or "").lower()
    if url.auth is not None:
        raise RefusedDestination("endpoint has userinfo")
    if loopback and url.scheme == "http" and host in ("127.0.0.1", "[::1]", "localhost"):
        return url.url
    if url.scheme != "https" or url.port not in (None, 443):
        raise RefusedDestination(f"endpoint not https on the default port: {url.scheme}:{url.port}")
    if not _HOST.match(host) or host.endswith("."):
        raise RefusedDestination(f"endpoint host not a plain name: {host[:100]!r}")
    try:
        ip_address(host)
        raise RefusedDestination(f"endpoint host is an address: {host}")
    except ValueError:
        pass
    if re.fullmatch(r"0x[0-9a-f]*|[0-9]+", host.rsplit(".", 1)[-1]):   # 0177.1, 0x7f.0.0.1
        raise RefusedDestination(f"endpoint host is a number: {host}")
    if not any(host == h or host.endswith("." + h) for h in _hosts()):
        raise RefusedDestination(f"endpoint host not a known push service: {host}")
    return url.url


def resolves_inside(endpoint: str) -> bool:
    """Whether the endpoint's host resolves now to an address the sender would refuse (at
    subscription time: a name that does not resolve is left to the sender's own check)."""
    url = parse_url(endpoint)
    try:
        infos = socket.getaddrinfo(url.host.strip("[]"), url.port or 443, 0, socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    return any(not allowed_address(info[4][0], test_loopback()) for info in infos)


# --- the sender's connections ---------------------------------------------------------------------
class _Guarded:
    """Resolve the host here, refuse it unless every address it has is allowed, and connect
    to the address checked (TLS still verifies the certificate against the host name)."""

    loopback_too = False

    def _new_conn(self):
        host = self._dns_host.strip("[]")
        try:
            infos = socket.getaddrinfo(host, self.port, 0, socket.SOCK_STREAM)
        except socket.gaierror:
            return super()._new_conn()   # urllib3 says it could not resolve the name
        refused = [i[4][0] for i in infos if not allowed_address(i[4][0], self.loopback_too)]
        if refused or not infos:
            raise RefusedDestination(f"{host} resolves to an address not allowed: {refused[:3]}")
        checked, self._dns_host = self._dns_host, infos[0][4][0]
        try:
            return super()._new_conn()
        finally:
            self._dns_host = checked


def _pools(loopback_too: bool) -> dict:
    http = type("GuardedHTTPConnection", (_Guarded, HTTPConnection), {"loopback_too": loopback_too})
    https = type("GuardedHTTPSConnection", (_Guarded, HTTPSConnection), {"loopback_too": loopback_too})
    return {"http": type("GuardedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": http}),
            "https": type("GuardedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": https})}


class GuardedAdapter(HTTPAdapter):
    """A requests adapter whose connections check the address they connect to."""

    def __init__(self, loopback_too: bool = False):
        self.loopback_too = loopback_too
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _pools(self.loopback_too)

    def proxy_manager_for(self, proxy, **kwargs):
        raise RefusedDestination("pushes are not sent through a proxy")


def session() -> requests.Session:
    """A requests session for pywebpush: guarded connections, no proxy or credentials from
    the environment, no redirects."""
    s = requests.Session()
    s.trust_env = False
    s.max_redirects = 0
    adapter = GuardedAdapter(loopback_too=test_loopback())
    s.mount("https://", adapter)
    s.mount("http://", adapter)
    return s


__all__ = ["GuardedAdapter", "MAX_ENDPOINT", "PUSH_SERVICE_HOSTS", "REFUSED", "RefusedDestination",
           "allowed_address", "check_endpoint", "public_address", "resolves_inside", "session",
           "test_loopback"]
