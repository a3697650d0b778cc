"""The simulated users of bench/load.py (Locust, the `bench` extra). Not run alone: load.py
builds the towns, starts the server and writes the plan this file reads (LOAD_PLAN).

Every user comes through its own address (X-Forwarded-For, one proxy trusted) over what the
app takes for https (X-Forwarded-Proto, trusted from loopback); the session cookie is
`Secure`, which the requests library will not send over plain http, so it is sent by hand.
"""
from __future__ import annotations

import itertools
import json
import os
import random
import re
import sys
import time
from pathlib import Path

import gevent
from locust import HttpUser, constant_pacing, events, task

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # noqa: E402  (bench/ on the path first)

PLAN = json.loads(Path(os.environ["LOAD_PLAN"]).read_text()) if os.environ.get("LOAD_PLAN") else {}
BASES = [Path(p).read_bytes() for p in PLAN.get("photos", [])]
# One simulated agent syncs an inspection every PACE s; the passengers' scans keep the goal's
# proportion (20,000 scans to 2,000 inspections an hour) at the weights below: 4 passenger
# users scanning every PACE * 0.08 s for 5 agents. load.py says what that offers per hour.
PACE = float(PLAN.get("pace", 20))
_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')
_ACCOUNTS = {role: itertools.count() for role in ("agents", "supervisors")}
_TOWNS_BY_ROLE = {role: [(t, name) for t in PLAN.get("towns", []) for name in t[role]]
                  for role in ("agents", "supervisors")}


# every request's (start, ms, name, ok), written at the end for load.py to set against the
# tick's runs (LOAD_TRACE)
TRACE: list[tuple[float, float, str, bool]] = []


@events.request.add_listener
def _trace(request_type, name, response_time, exception=None, start_time=None, **_kw):
    TRACE.append((start_time or time.time() - response_time / 1000, response_time, name,
                  exception is None))


@events.quitting.add_listener
def _write_trace(**_kw):
    if os.environ.get("LOAD_TRACE"):
        Path(os.environ["LOAD_TRACE"]).write_text(json.dumps(TRACE))


# The figures start once every user has signed in (a phone stays signed in for weeks: logins,
# Argon2 by design, are no part of a peak hour) and run for LOAD_DURATION s from there.
_READY = itertools.count(1)


def _ready(environment) -> None:
    if next(_READY) != environment.parsed_options.num_users:
        return
    environment.runner.stats.reset_all()
    if os.environ.get("LOAD_STEADY"):
        Path(os.environ["LOAD_STEADY"]).write_text(str(time.time()))
    gevent.spawn_later(float(os.environ.get("LOAD_DURATION", 60)), environment.runner.quit)


def _why(r) -> str:
    """A failure's reason: the status and the body's start, or (status 0: no HTTP answer)
    the client's error, e.g. a connection reset."""
    return f"HTTP {r.status_code}: {r.text[:200]!r}" if r.status_code else f"no answer: {r.error!r}"


def _address() -> str:
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


class Person(HttpUser):
    """A signed-in user of the app: logs in on start and keeps the cookie by hand."""

    abstract = True
    role = ""

    def on_start(self) -> None:
        self.address = _address()
        self.jar: dict[str, str] = {}
        accounts = _TOWNS_BY_ROLE[self.role]
        self.town, username = accounts[next(_ACCOUNTS[self.role]) % len(accounts)]
        page = self.call("GET", "/entrar", "GET /entrar")
        token = _TOKEN.search(page.text).group(1) if page.ok else ""
        self.call("POST", "/entrar", "POST /entrar (login)", expect=(302,),
                  data={"username": username, "password": PLAN["password"], "csrf_token": token})

    def headers(self, extra: dict | None = None) -> dict:
        h = {"X-Forwarded-For": self.address, "X-Forwarded-Proto": "https",
             "Accept-Encoding": "gzip"}
        if self.jar:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        return {**h, **(extra or {})}

    def call(self, method: str, path: str, name: str, expect=(200,), headers=None, **kw):
        """One request; a status outside `expect` is a failure (with the body's start)."""
        with self.client.request(method, path, name=name, headers=self.headers(headers),
                                 allow_redirects=False, catch_response=True, **kw) as r:
            self.jar.update(r.cookies.get_dict())
            if r.status_code in expect:
                r.success()
            else:
                r.failure(_why(r))
        return r


class Agent(Person):
    """An agent whose phone syncs a finished inspection and its three photos."""

    weight = 5
    role = "agents"
    wait_time = constant_pacing(PACE)

    def on_start(self) -> None:
        super().on_start()
        got = self.call("GET", "/api/field/session", "GET /api/field/session")
        self.csrf = got.json()["csrf_token"] if got.ok else ""
        _ready(self.environment)
        gevent.sleep(random.uniform(0, PACE))  # agents' syncs spread over the pace, not in step

    @task
    def sync_inspection(self) -> None:
        town = self.town
        iid, body, photos = load.inspection(random.choice(town["vehicles"]), town["items"],
                                            town["version"], random.sample(BASES, 3),
                                            os.urandom(16))
        got = self.call("PUT", f"/api/field/inspections/{iid}", "PUT inspection",
                        expect=(201, 200), data=body,
                        headers={"X-CSRFToken": self.csrf, "Content-Type": "application/json",
                                 "Accept": "application/json"})
        if not got.ok:
            return
        for pid, data, sha in photos:
            self.call("PUT", f"/api/field/inspections/{iid}/photos/{pid}", "PUT photo",
                      expect=(201, 200), data=data,
                      headers={"X-CSRFToken": self.csrf, "Content-Type": "image/jpeg",
                               "X-Content-SHA256": sha, "Accept": "application/json"})


class Passenger(HttpUser):
    """A passenger who scans a credential's QR: the page, then the rider's photo on it.
    Each scan comes from a new address (a different phone)."""

    weight = 4
    wait_time = constant_pacing(PACE * 0.08)

    def on_start(self) -> None:
        _ready(self.environment)

    @task
    def scan(self) -> None:
        town = random.choice(PLAN["towns"])
        headers = {"X-Forwarded-For": _address(), "X-Forwarded-Proto": "https",
                   "Accept-Encoding": "gzip"}
        with self.client.get(random.choice(town["scans"]), name="GET /v/<token>",
                             headers=headers, catch_response=True) as r:
            if r.status_code != 200:
                r.failure(_why(r))
                return
            photos = load.links(load.RIDER_PHOTO, r.text)
        for path in photos:
            with self.client.get(path, name="GET /v/<token>/foto", headers=headers,
                                 catch_response=True) as p:
                if p.status_code != 200:
                    p.failure(_why(p))


class Supervisor(Person):
    """A supervisor who opens the review queue, then one inspection of it and its photos."""

    weight = 1
    role = "supervisors"
    wait_time = constant_pacing(PACE / 2)

    def on_start(self) -> None:
        super().on_start()
        _ready(self.environment)

    @task
    def review(self) -> None:
        queue = self.call("GET", "/revisao", "GET /revisao")
        pages = load.links(load.QUEUE_LINK, queue.text) if queue.ok else []
        if not pages:
            return
        page = self.call("GET", random.choice(pages[:20]), "GET /revisao/vistorias/<id>")
        for mini in load.links(load.MINI_LINK, page.text)[:3] if page.ok else []:
            self.call("GET", mini, "GET /revisao/fotos/<id>/mini.jpg")
