// The field app: screens, the service worker and its update prompt, the session, the
// snapshot refresh, the outbox counters that are always on screen, the supervisor's
// answers ("Minhas vistorias"), the "session expired" notice and the menu ("Sair").

import { clearSignedOut, setupMenu, signedOutHere } from "./account.js";
import { connectivity, fetchSession, serverReachable } from "./api.js";
import { codeCard, resultCard, serviceLabel } from "./card.js";
import { knownFailures } from "./situation.js";
import * as store from "./db.js";
import { InspectionForm } from "./inspection.js";
import { clearDraft, getDraft } from "./drafts.js";
import { renderOutboxList, renderPending } from "./outbox.js";
import { setupPushButton } from "./notifications.js";
import { checklistFor, hasSnapshot, scanContext, searchVehicles, vehicleDetails } from "./registry.js";
import { renderReviewCount, renderReviews } from "./reviews.js";
import { decodeImageFile, startCameraScan } from "./scan.js";
import * as sync from "./sync.js";
import { el, formatDateTime, plural } from "./ui.js";
import { verifyCode } from "./verify.js";

const STALE_MS = 24 * 3600 * 1000;
const $ = (id) => document.getElementById(id);

const state = { user: null, stopCamera: null, current: null, form: null, signedOut: false };

// ---------- screens ----------

function show(name) {
  if (state.signedOut) name = "login"; // after "Sair" nothing but "Entrar" until someone signs in
  if (state.stopCamera && name !== "scan") {
    state.stopCamera();
    state.stopCamera = null;
  }
  document.querySelectorAll(".screen").forEach((s) => { s.hidden = s.dataset.screen !== name; });
  document.body.dataset.screen = name;
  window.scrollTo(0, 0);
  if (name === "scan") openScanner();
  if (name === "outbox") renderOutbox();
  if (name === "reviews") renderReviews($("reviews-list"), $("reviews-note")).then(renderCount);
  if (name === "home") {
    renderFreshness();
    renderLastSend();
    renderCount();
  }
}

function renderCount() {
  return renderReviewCount($("reviews-new"));
}

function onReviews(event) {
  renderCount();
  if (document.body.dataset.screen === "reviews") show("reviews");
  else if (event.detail.fresh) {
    toast(`A supervisão respondeu sobre ${plural(event.detail.fresh, "vistoria sua", "vistorias suas")}: veja em “Minhas vistorias”.`);
  }
}

/**
 * Go to a screen the way a phone user expects: home is the root, every other screen is one
 * step above it, so the system back button (or gesture) always returns home, and leaving
 * an inspection half-filled asks first.
 */
function navigate(name) {
  if (state.signedOut) return show("login");
  const here = history.state && history.state.screen;
  if (name === "home") {
    if (here && here !== "home") history.back(); // popstate shows home
    else show("home");
    return;
  }
  if (!here || here === "home") history.pushState({ screen: name }, "");
  else history.replaceState({ screen: name }, "");
  show(name);
}

function onPopState(event) {
  const target = (event.state && event.state.screen) || "home";
  if (document.body.dataset.screen === "inspection" && target !== "inspection" && state.form.context) {
    if (!state.form.hasAnswers() || window.confirm("Sair da vistoria? O que foi preenchido será perdido.")) {
      state.form.close();
    } else {
      history.pushState({ screen: "inspection" }, "");
      return;
    }
  }
  show(target);
}

function toast(message) {
  const node = $("toast");
  node.textContent = message;
  node.hidden = !message;
  clearTimeout(toast.timer);
  if (message) toast.timer = setTimeout(() => { node.hidden = true; }, 6000);
}

/** The decided result of a synced vistoria, in one sentence. */
function vistoriaText(v) {
  const day = (iso) => (iso ? iso.split("-").reverse().join("/") : "");
  if (v.result === "approved") {
    const cert = v.certificate ? `, certificado nº ${v.certificate.number}` : "";
    return `Vistoria aprovada (${v.label}): válida até ${day(v.valid_until)}${cert}.`;
  }
  const items = (v.to_fix || []).map((f) => f.label).join("; ");
  return `Vistoria reprovada (${v.label}): retorno até ${day(v.return_on)}. Corrigir: ${items}.`;
}

// ---------- always-visible status ----------

let countsQueued = null;

/** Redraw the counters soon, once for a burst of changes (200 inspections sending). */
function renderCountsSoon() {
  if (!countsQueued) {
    countsQueued = new Promise((resolve) => setTimeout(resolve, 150))
      .then(renderCounts).finally(() => { countsQueued = null; });
  }
  return countsQueued;
}

/** The agent whose inspections this phone sends now (the last one seen signed in). */
async function currentUser() {
  if (state.signedOut) return null; // every waiting inspection is then someone's to send
  return state.user || (await store.getMeta("user")) || null;
}

async function renderCounts() {
  await renderPending(await currentUser());
  if (document.body.dataset.screen === "outbox") renderOutbox();
}

/** Today's vistorias booked in the agenda, kept on the phone: each opens its vehicle's card. */
async function renderAgenda() {
  const today = new Date().toLocaleDateString("sv-SE"); // YYYY-MM-DD on the phone's clock
  const rows = (await store.allRows("appointments").catch(() => []))
    .filter((a) => a.day === today)
    .sort((a, b) => a.starts_at.localeCompare(b.starts_at));
  $("agenda-list").replaceChildren(...rows.map((a) => el("li", {},
    el("button", { type: "button", class: "btn result-row", onclick: () => pickVehicle(a.vehicle_id) },
      el("strong", {}, a.time),
      ` · ${a.plate}${a.prefix ? ` · prefixo ${a.prefix}` : ""} · ${a.kind_label} · ${a.place}`))));
  $("agenda-box").hidden = !rows.length;
}

async function renderFreshness() {
  const node = $("freshness");
  const refreshed = await store.getMeta("refreshedAt");
  if (!refreshed) {
    node.textContent = "Dados do município ainda não baixados neste aparelho.";
    node.classList.add("stale");
    return;
  }
  const old = Date.now() - Date.parse(refreshed) > STALE_MS;
  const [vehicles, drivers] = await Promise.all([store.countRows("vehicles"), store.countRows("drivers")]);
  const held = `${plural(vehicles, "veículo", "veículos")} e ${plural(drivers, "condutor", "condutores")} no aparelho`;
  node.textContent = `Dados atualizados em ${formatDateTime(refreshed)}: ${held}` +
    (old ? " — mais de 24 h: atualize quando houver internet." : ".");
  node.classList.toggle("stale", old);
}

/** When this phone last delivered inspections to the server (kept across reloads). */
async function renderLastSend() {
  const last = await store.getMeta("lastSent");
  $("last-send").textContent = last
    ? `Último envio: ${formatDateTime(last.at)} (${plural(last.sent, "vistoria", "vistorias")}).`
    : "Nenhuma vistoria enviada deste aparelho ainda.";
}

function renderNetwork() {
  const online = navigator.onLine && serverReachable() !== false;
  $("net").textContent = online ? "Conectado" : "Sem internet";
  $("net").classList.toggle("offline", !online);
}

function renderWho() {
  const u = state.user;
  $("who").textContent = u ? [u.name, u.town && (u.town.name || u.town)].filter(Boolean).join(" · ") : "";
  $("sign-out").hidden = !u;
}

/** Nobody is signed in on this phone ("Sair" was pressed): only "Entrar"; the outbox stays. */
function enterSignedOut() {
  state.signedOut = true;
  state.user = null;
  if (state.form && state.form.context) state.form.close();
  renderWho();
  $("session-expired").hidden = true;
  $("signed-out-note").hidden = false;
  $("login-message").textContent = "";
  $("sync-status").textContent = "";
  history.replaceState({ screen: "login" }, "");
  show("login");
  return renderCounts();
}

// ---------- service worker ----------

async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  let reloading = false;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (state.updateRequested && !reloading) {
      reloading = true;
      window.location.reload();
    }
  });
  const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  const offer = (worker) => {
    if (!worker || !navigator.serviceWorker.controller) return; // first install: nothing to replace
    $("update").hidden = false;
    $("update-apply").onclick = () => {
      state.updateRequested = true;
      worker.postMessage({ type: "SKIP_WAITING" });
    };
  };
  if (registration.waiting) offer(registration.waiting);
  registration.addEventListener("updatefound", () => {
    const worker = registration.installing;
    worker.addEventListener("statechange", () => {
      if (worker.state === "installed") offer(worker);
    });
  });
  window.fieldApp.registration = registration;
}

// ---------- session and data ----------

async function loadSession() {
  const result = await fetchSession();
  state.signedOut = (result.status === 401 || Boolean(result.networkError)) && (await signedOutHere());
  if (result.status === 401) {
    if (navigator.onLine) {
      window.location.assign("/entrar?next=/campo");
      return false;
    }
  } else if (result.status === 403) {
    $("login-message").textContent = "Seu perfil não usa o aplicativo de campo: entre com uma conta de agente.";
    show("login");
    return false;
  } else if (result.ok && result.data) {
    const user = result.data.user || result.data;
    const previous = await store.getMeta("user");
    if (previous && previous.id !== user.id) { // another agent: their town, their answers
      await store.clearSnapshot();
      await store.clearReviews();
      // and not the previous agent's notifications (their session ended without "Sair")
      if (await dropPushSubscription()) setupPushButton($("push-enable"), $("push-state"));
    }
    await store.setMeta("user", user);
    await clearSignedOut();
    state.user = user;
  }
  if (state.signedOut) { // "Sair" was pressed and nobody signed in since (offline now)
    await enterSignedOut();
    return false;
  }
  if (!state.user) state.user = (await store.getMeta("user")) || null;
  renderWho();
  if (!state.user && !(await hasSnapshot())) {
    show("login");
    return false;
  }
  return result.ok;
}

/** Unsubscribe this browser from Web Push (the push service forgets the endpoint, so nothing
 * sent to it arrives); whether there was a subscription. */
async function dropPushSubscription() {
  try {
    const registration = "serviceWorker" in navigator ? await navigator.serviceWorker.getRegistration("/") : null;
    const subscription = registration && registration.pushManager ? await registration.pushManager.getSubscription() : null;
    if (!subscription) return false;
    await subscription.unsubscribe();
    return true;
  } catch {
    return false;
  }
}

async function refreshData({ announce = false } = {}) {
  const result = await sync.refreshSnapshot();
  if (result.ok) {
    if (announce) toast(result.data.full ? "Dados do município baixados." : "Dados atualizados.");
  } else if (announce) {
    toast(result.networkError ? "Sem internet: os dados do aparelho continuam valendo." : result.message);
  }
  renderFreshness();
  return result;
}

// ---------- finding a vehicle ----------

function openScanner() {
  const status = $("scan-status");
  status.textContent = "Abrindo a câmera…";
  startCameraScan($("scan-video"), {
    onStatus: (text) => { status.textContent = text; },
    onCode: (text) => handleCode(text),
  }).then((stop) => {
    if (document.body.dataset.screen === "scan") state.stopCamera = stop;
    else stop();
  });
}

async function handleCode(text) {
  const verification = await verifyCode(text);
  state.lastToken = verification.verdict === "malformed" ? null : verification.token;
  state.lastHost = verification.verdict === "wrong_host" ? verification.host : null;
  const subject = verification.claims;
  let details = null;
  let riderId = null;
  if (subject && verification.verdict !== "forged" && subject.kind === "vehicle") {
    details = await vehicleDetails(subject.subjectId);
  } else if (subject && verification.verdict !== "forged" && subject.kind === "driver") {
    // a rider's vest badge: show the vehicle they ride, and say whose badge it is
    const driver = await store.getRow("drivers", subject.subjectId);
    if (driver) {
      riderId = driver.id;
      verification.reason = `Crachá de ${driver.name}. ${verification.reason}`;
      if ((driver.vehicle_ids || []).length) details = await vehicleDetails(driver.vehicle_ids[0]);
    }
  }
  showResult(details, verification, await scanContext(details, riderId));
}

function showResult(details, verification = null, scan = null) {
  const box = $("result");
  state.current = details;
  state.riderId = scan?.rider?.id ?? null; // a scanned vest badge: that rider was driving
  box.replaceChildren(details ? resultCard(details, verification, scan) : codeCard(verification, scan));
  const canInspect = !state.user || !state.user.role || state.user.role === "agent"; // supervisors read only
  $("start-inspection").hidden = !details || verification?.verdict === "forged" || !canInspect;
  renderKinds(details, !$("start-inspection").hidden);
  navigate("result");
}

/** The law's vistorias offered for this vehicle's service (docs/vistoria.md), as buttons under
 * the street inspection's: each starts the same checklist form with the items its kind checks. */
async function renderKinds(details, allowed) {
  const box = $("start-kinds");
  const checklist = allowed && details ? await checklistFor(details.vehicle.service) : null;
  const plans = (checklist && checklist.vistorias) || [];
  box.replaceChildren(...plans.map((p) => el("button", {
    type: "button", class: "btn", dataset: { kind: p.kind }, onclick: () => startInspection(p.kind),
  }, p.label)));
  box.hidden = !plans.length;
}

async function search(event) {
  event.preventDefault();
  const list = $("search-results");
  const vehicles = await searchVehicles($("search-q").value);
  list.replaceChildren(...vehicles.map((v) => el("li", {},
    el("button", { type: "button", class: "btn result-row", onclick: () => pickVehicle(v.id) },
      el("strong", {}, v.plate), v.prefix ? ` · prefixo ${v.prefix}` : "",
      v.service ? ` · ${serviceLabel(v.service, { lower: true })}` : ""))));
  if (!vehicles.length) {
    list.replaceChildren(el("li", { class: "empty" }, (await hasSnapshot())
      ? "Nenhum veículo com essa placa ou prefixo nos dados do aparelho."
      : "Os dados do município ainda não foram baixados."));
  } else if (vehicles.length === 1) {
    pickVehicle(vehicles[0].id);
  }
}

async function pickVehicle(id) {
  state.lastToken = state.lastHost = null; // found by plate or prefix: nothing was scanned
  const details = await vehicleDetails(id);
  showResult(details, null, await scanContext(details));
}

// ---------- inspection ----------

async function startInspection(kind = "street") {
  const details = state.current;
  if (!details) return;
  const full = await checklistFor(details.vehicle.service);
  if (!full || !full.items || !full.items.length) {
    toast("Não há checklist em vigor para este serviço nos dados do aparelho. Atualize os dados.");
    return;
  }
  const plan = kind === "street" ? null : (full.vistorias || []).find((p) => p.kind === kind);
  if (kind !== "street" && !plan) {
    toast(full.vistoria_none || "A lei deste serviço não prevê esta vistoria.");
    return;
  }
  const checklist = plan ? { ...full, items: full.items.filter((i) => plan.item_ids.includes(i.id)) } : full;
  // a vistoria renews the vistoria itself: its lapse is not a defect to find in it
  const known = knownFailures(details, state.riderId ?? null)
    .filter((r) => !plan || !String(r.rule_id || "").startsWith("vistoria."));
  state.form.open({
    kind, plan,
    vehicle: details.vehicle, checklist,
    credentialToken: state.lastToken || null, scannedHost: state.lastHost || null,
    snapshotVersion: await store.getMeta("snapshotVersion"),
    drivers: details.drivers, riderId: state.riderId ?? null,
    agentId: state.user ? state.user.id : null,
    known, // pre-marks what the card already says
  });
  navigate("inspection");
}

/** The inspection the signed-in agent was filling when the app last closed (a reload, the
 * browser pushed out of memory by the camera): back on screen as it was left. */
async function resumeDraft() {
  const saved = await getDraft().catch(() => null);
  if (!saved || !state.user || !saved.context || saved.context.agentId !== state.user.id) return;
  const begun = saved.answers.some((a) => a.result || a.photos.length) || saved.signature;
  if (!begun) {
    await clearDraft().catch(() => {});
    return;
  }
  state.form.open(saved.context, saved);
  navigate("inspection");
  toast("Vistoria em andamento recuperada: continue de onde parou.");
}

async function saveInspection(event) {
  event.preventDefault();
  const button = $("inspection-save");
  button.disabled = true;
  try {
    const id = await state.form.save();
    if (!id) return;
    const online = navigator.onLine; // the same test that sends it right away, below
    toast(online ? "Vistoria salva no aparelho. Enviando…"
      : "Vistoria salva no aparelho. Será enviada quando houver internet.");
    navigate("home");
    await renderCounts();
    if (online) sync.syncOutbox();
  } finally {
    button.disabled = false;
  }
}

// ---------- outbox ----------

function renderOutbox() {
  return renderOutboxList($("outbox-list"), currentUser, renderCounts);
}

// ---------- start ----------

function wire() {
  document.addEventListener("click", (e) => {
    const go = e.target.closest("[data-go]");
    if (go) navigate(go.dataset.go);
  });
  $("search-form").addEventListener("submit", search);
  $("sync-now").addEventListener("click", () => { sync.resetBackoff(); sync.syncOutbox({ manual: true }); });
  $("refresh-data").addEventListener("click", () => refreshData({ announce: true }));
  $("start-inspection").addEventListener("click", () => startInspection("street"));
  $("inspection-form").addEventListener("submit", saveInspection);
  $("inspection-cancel").addEventListener("click", () => {
    if (state.form.hasAnswers() && !window.confirm("Descartar esta vistoria? O que foi preenchido será perdido.")) return;
    state.form.close();
    navigate("home");
  });
  window.addEventListener("popstate", onPopState);
  $("scan-file").addEventListener("change", async (e) => {
    const file = e.target.files && e.target.files[0];
    e.target.value = "";
    if (!file) return;
    $("scan-status").textContent = "Lendo a foto…";
    const text = await decodeImageFile(file).catch(() => null);
    if (text) handleCode(text);
    else $("scan-status").textContent = "Nenhum QR code na foto. Tente de novo, mais perto e com luz.";
  });
  setupMenu($("menu"), { currentUser, onSignedOut: enterSignedOut });
  window.addEventListener("online", () => {
    renderNetwork();
    if (state.signedOut) return;
    sync.resetBackoff();
    sync.syncOutbox();
    refreshData();
  });
  window.addEventListener("offline", renderNetwork);
  connectivity.addEventListener("reachable", renderNetwork);
  connectivity.addEventListener("signed-out", () => { $("session-expired").hidden = state.signedOut; });
  connectivity.addEventListener("signed-in", () => {
    $("session-expired").hidden = true;
    if (state.signedOut) window.location.reload(); // someone signed in meanwhile (on the site)
  });
  sync.events.addEventListener("reviews", onReviews);
  sync.events.addEventListener("changed", renderCountsSoon);
  sync.events.addEventListener("status", (e) => {
    if (state.signedOut) return; // nobody signed in: "Entrar" says it all
    $("sync-status").textContent = e.detail.message || "";
    $("sync-status").dataset.state = e.detail.state;
  });
  sync.events.addEventListener("snapshot", renderFreshness);
  sync.events.addEventListener("snapshot", renderAgenda);
  sync.events.addEventListener("sent", renderLastSend);
  sync.events.addEventListener("vistoria", (e) => toast(vistoriaText(e.detail)));
}

async function start() {
  window.fieldApp = { store, sync, verifyCode, handleCode, ready: false };
  state.form = new InspectionForm($("screen-inspection"));
  wire();
  renderNetwork();
  await renderCounts();
  registerServiceWorker().catch((e) => console.warn("service worker", e))
    .then(() => setupPushButton($("push-enable"), $("push-state")));
  if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(() => {});
  const online = await loadSession();
  await renderCounts(); // now split by the agent the server says is signed in
  if (document.body.dataset.screen !== "login") {
    history.replaceState({ screen: "home" }, "");
    show("home");
    await resumeDraft();
    renderAgenda().catch((e) => console.warn("agenda", e));
  }
  if (online) await Promise.all([sync.syncOutbox(), refreshData()]);
  window.fieldApp.ready = true;
  document.body.dataset.ready = "1";
}

start();
