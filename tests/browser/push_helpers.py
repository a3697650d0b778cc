"""Web Push in Chromium without a push service: register the worker, deliver a message
over CDP, read the notifications shown."""
from __future__ import annotations

import json
import time

NOTIFICATIONS = """async () => {
  const reg = await navigator.serviceWorker.ready;
  return (await reg.getNotifications()).map(
    (n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url}));
}"""


def activated_worker(context, page, origin: str):
    """Register /sw.js, wait until its version is activated (not merely installed: a push
    delivered while it activates can be lost); a CDP session and its registration id."""
    cdp = context.new_cdp_session(page)
    found: list[dict] = []
    versions: list[dict] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: found.extend(e["registrations"]))
    cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.extend(e["versions"]))
    cdp.send("ServiceWorker.enable")
    page.evaluate("navigator.serviceWorker.getRegistration('/').then((r) => r || "
                  "navigator.serviceWorker.register('/sw.js', {scope: '/'}))"
                  ".then(() => navigator.serviceWorker.ready).then(() => true)")
    deadline = time.time() + 20
    while time.time() < deadline:
        ids = [r["registrationId"] for r in found
               if r["scopeURL"] == origin + "/" and not r.get("isDeleted")]
        if ids and any(v["registrationId"] == ids[-1] and v["status"] == "activated"
                       for v in versions):
            return cdp, ids[-1]
        page.wait_for_timeout(100)
    raise AssertionError(f"no service worker registration for {origin}: {found}")


def deliver_push(cdp, origin: str, registration_id: str, data: str) -> None:
    cdp.send("ServiceWorker.deliverPushMessage",
             {"origin": origin, "registrationId": registration_id, "data": data})


def notifications_shown(page, count: int, seconds: float = 15) -> list[dict]:
    deadline = time.time() + seconds
    while time.time() < deadline:
        shown = page.evaluate(NOTIFICATIONS)
        if len(shown) >= count:
            return shown
        page.wait_for_timeout(100)
    raise AssertionError(f"{count} notification(s) expected, got {page.evaluate(NOTIFICATIONS)}")


def push_until_shown(cdp, origin: str, registration_id: str, page, message: dict) -> dict:
    """Deliver a tagged push and return its notification. On a loaded machine Chromium can
    drop a push delivered over CDP while it starts the idle worker (CI saw none after 15 s);
    a push service delivers again what was not received, and the same tag replaces, so one
    more delivery after 8 s is what the phone would get."""
    assert message.get("tag"), "a retried push must be tagged, or it could show twice"
    deliver_push(cdp, origin, registration_id, json.dumps(message))
    try:
        return notifications_shown(page, 1, seconds=8)[0]
    except AssertionError:
        deliver_push(cdp, origin, registration_id, json.dumps(message))
        [shown] = notifications_shown(page, 1)
        return shown
