// The operator console: the /v1 API with a secret key held in this closure only (no cookie, no
// storage, no URL). Server values are written with textContent only.
"use strict";

(function () {
  let key = null;                  // the secret key, in memory only
  let page = { first: null, last: null, hasMore: false, direction: null };
  let current = null;              // the intent on the detail view

  const $ = (id) => document.getElementById(id);
  const show = (id, visible) => { $(id).hidden = !visible; };

  async function call(method, path, body) {
    const headers = { "Accept": "application/json", "Authorization": "Bearer " + key };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
    } catch (error) {
      return { status: 0, json: { error: { message: "the server cannot be reached: " + error.message, code: "network" } } };
    }
    let json = null;
    try { json = await response.json(); } catch (_) { json = null; }
    return { status: response.status, json };
  }

  // The API's error message as it is, with its code and status.
  function errorText(answer) {
    const error = answer.json && answer.json.error;
    if (error) return "HTTP " + answer.status + " " + error.code + ": " + error.message;
    return "HTTP " + answer.status;
  }

  function money(minor, currency) {
    try {
      const format = new Intl.NumberFormat("en-US", { style: "currency", currency });
      return format.format(minor / Math.pow(10, format.resolvedOptions().maximumFractionDigits));
    } catch (_) { return minor + " " + currency; }
  }

  const time = (seconds) => new Date(seconds * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");

  function cell(row, text) { const td = document.createElement("td"); td.textContent = text; row.append(td); return td; }

  // --- sign in -------------------------------------------------------------------------

  async function signIn(event) {
    event.preventDefault();
    key = $("key").value.trim();
    $("key").value = "";
    const answer = await call("GET", "/v1/payment_intents?limit=1");
    if (answer.status !== 200) {
      key = null;
      $("sign-in-message").textContent = errorText(answer);
      $("key").focus();
      return;
    }
    $("sign-in-message").textContent = "";
    show("sign-in", false);
    show("sign-out", true);
    show("intents", true);
    page = { first: null, last: null, hasMore: false, direction: null };
    await loadList();
    $("status-filter").focus();
  }

  function signOut() {
    key = null;
    current = null;
    $("intent-rows").replaceChildren();
    ["intents", "detail", "sign-out"].forEach((id) => show(id, false));
    show("sign-in", true);
    $("key").focus();
  }

  // --- the list ------------------------------------------------------------------------

  async function loadList(cursor) {
    const query = new URLSearchParams({ limit: "10" });
    const status = $("status-filter").value;
    if (status) query.set("status", status);
    if (cursor) query.set(cursor.name, cursor.id);
    const answer = await call("GET", "/v1/payment_intents?" + query.toString());
    if (answer.status !== 200) { $("list-message").textContent = errorText(answer); return; }
    $("list-message").textContent = "";
    const rows = $("intent-rows");
    rows.replaceChildren();
    const data = answer.json.data || [];
    data.forEach((intent) => {
      const row = document.createElement("tr");
      const first = document.createElement("td");
      const open = document.createElement("button");
      open.type = "button";
      open.className = "link";
      open.textContent = intent.id;
      open.addEventListener("click", () => openIntent(intent.id));
      first.append(open);
      row.append(first);
      cell(row, intent.status);
      cell(row, money(intent.amount, intent.currency));
      cell(row, money(intent.amount_captured, intent.currency));
      cell(row, money(intent.amount_refunded, intent.currency));
      cell(row, time(intent.created));
      rows.append(row);
    });
    if (data.length === 0) { const row = document.createElement("tr"); cell(row, "No intents.").colSpan = 6; rows.append(row); }
    page.first = data.length ? data[0].id : null;
    page.last = data.length ? data[data.length - 1].id : null;
    // has_more speaks for the direction just read; the other direction is open when we came from it.
    const backwards = cursor && cursor.name === "ending_before";
    $("older").disabled = !(backwards ? !!cursor : answer.json.has_more) || !page.last;
    $("newer").disabled = !(backwards ? answer.json.has_more : !!cursor) || !page.first;
  }

  // --- one intent ----------------------------------------------------------------------

  async function openIntent(id) {
    const answer = await call("GET", "/v1/payment_intents/" + encodeURIComponent(id) + "?include=events");
    if (answer.status !== 200) { $("list-message").textContent = errorText(answer); return; }
    current = answer.json;
    renderIntent();
    show("intents", false);
    show("detail", true);
    $("detail").focus();
    // The processor's side and the webhooks come from their own routes; each says its own errors.
    await Promise.all([loadLedger(id), loadDeliveries(id)]);
  }

  // --- the state diagram ---------------------------------------------------------------

  // The statuses of docs/state-machine.md (PaymentStatus) and the moves between them, drawn as
  // an inline SVG: boxes and arrows, the current state filled, the states its history passed
  // through outlined. Built with DOM calls (no markup strings), so nothing inline runs.
  const STATES = {
    requires_payment_method: [100, 30], processing: [330, 30], requires_capture: [560, 30],
    requires_action: [100, 130], requires_merchant_action: [330, 130], succeeded: [560, 130],
    canceled: [215, 230], expired: [560, 230],
  };
  const MOVES = [
    ["requires_payment_method", "processing"], ["requires_payment_method", "canceled"],
    ["requires_action", "processing"], ["requires_action", "requires_payment_method"], ["requires_action", "canceled"],
    ["processing", "requires_capture"], ["processing", "requires_merchant_action"], ["processing", "requires_payment_method"],
    ["processing", "requires_action"], ["processing", "succeeded"], ["processing", "canceled"],
    ["requires_capture", "processing"], ["requires_capture", "expired"],
    ["requires_merchant_action", "requires_payment_method"], ["requires_merchant_action", "canceled"],
    ["requires_merchant_action", "processing"], ["requires_merchant_action", "succeeded"], ["requires_merchant_action", "requires_capture"],
  ];
  const BOX = { width: 190, height: 34 };
  const SVG = "http://www.w3.org/2000/svg";

  function svg(name, attributes) {
    const element = document.createElementNS(SVG, name);
    Object.entries(attributes || {}).forEach(([key, value]) => element.setAttribute(key, String(value)));
    return element;
  }

  // Where the line from a box's centre towards (dx, dy) leaves the box.
  function edgePoint(centre, dx, dy) {
    const t = Math.min(dx === 0 ? Infinity : (BOX.width / 2) / Math.abs(dx), dy === 0 ? Infinity : (BOX.height / 2) / Math.abs(dy));
    return [centre[0] + dx * t, centre[1] + dy * t];
  }

  function renderDiagram(intent) {
    const visited = new Set((intent.events || []).flatMap((event) => [event.from_status, event.to_status]).filter(Boolean));
    const root = svg("svg", { viewBox: "0 0 660 260", role: "img", "aria-labelledby": "diagram-text" });
    const text = svg("title", { id: "diagram-text" });
    text.textContent = "State diagram: the intent is " + intent.status + (visited.size ? "; its history passed through " + Array.from(visited).join(", ") : "") + ".";
    const defs = svg("defs");
    const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "state-arrow" }));
    defs.append(marker);
    root.append(text, defs);
    MOVES.forEach(([from, to]) => {
      const a = STATES[from], b = STATES[to];
      const dx = b[0] - a[0], dy = b[1] - a[1];
      const length = Math.hypot(dx, dy);
      // Two moves between the same pair (there and back) are drawn apart, each to its right.
      const ox = (-dy / length) * 5, oy = (dx / length) * 5;
      const start = edgePoint(a, dx, dy), end = edgePoint(b, -dx, -dy);
      root.append(svg("line", { x1: start[0] + ox, y1: start[1] + oy, x2: end[0] + ox, y2: end[1] + oy, class: "state-edge", "marker-end": "url(#arrow)" }));
    });
    Object.entries(STATES).forEach(([name, centre]) => {
      const kind = name === intent.status ? " current" : visited.has(name) ? " visited" : "";
      const group = svg("g", { class: "state-box" + kind, "data-state": name });
      if (name === intent.status) group.setAttribute("aria-current", "true");
      group.append(svg("rect", { x: centre[0] - BOX.width / 2, y: centre[1] - BOX.height / 2, width: BOX.width, height: BOX.height, rx: 8 }));
      const label = svg("text", { x: centre[0], y: centre[1] });
      label.textContent = name;
      group.append(label);
      root.append(group);
    });
    $("state-diagram").replaceChildren(root);
  }

  // --- the processor's ledger and the webhook deliveries -------------------------------

  async function loadLedger(id) {
    const rows = $("ledger-rows");
    rows.replaceChildren();
    $("ledger-message").textContent = "Reading the processor's ledger…";
    const answer = await call("GET", "/v1/payment_intents/" + encodeURIComponent(id) + "/processor_ledger");
    if (answer.status !== 200 || !answer.json) { $("ledger-message").textContent = errorText(answer); return; }
    if (!answer.json.available) { $("ledger-message").textContent = "The processor's ledger is not available: " + answer.json.reason; return; }
    const data = answer.json.data || [];
    $("ledger-message").textContent = data.length ? "" : "The processor recorded nothing for this intent's attempts.";
    data.forEach((entry) => {
      const row = document.createElement("tr");
      cell(row, entry.id); cell(row, entry.attempt); cell(row, entry.operation + (entry.refund ? " " + entry.refund : ""));
      cell(row, money(entry.amount, entry.currency));
      cell(row, entry.status + (entry.decline_code ? " (" + entry.decline_code + ")" : ""));
      cell(row, entry.last4 ? (entry.network || "card") + " •••• " + entry.last4 : "—");
      rows.append(row);
    });
  }

  async function loadDeliveries(id) {
    const rows = $("delivery-rows");
    rows.replaceChildren();
    $("deliveries-message").textContent = "Reading the webhook deliveries…";
    const answer = await call("GET", "/v1/webhook_deliveries?" + new URLSearchParams({ payment_intent: id, limit: "20" }).toString());
    if (answer.status !== 200 || !answer.json) { $("deliveries-message").textContent = errorText(answer); return; }
    const data = answer.json.data || [];
    $("deliveries-message").textContent = data.length ? (answer.json.has_more ? "The newest 20 events' deliveries." : "")
      : "No webhook delivery for this intent's events (no endpoint registered, or none wants these events).";
    data.forEach((delivery) => {
      const row = document.createElement("tr");
      cell(row, delivery.event); cell(row, delivery.event_type); cell(row, delivery.endpoint); cell(row, delivery.status);
      cell(row, String(delivery.attempt_count));
      const last = delivery.attempts && delivery.attempts.length ? delivery.attempts[delivery.attempts.length - 1] : null;
      cell(row, last ? (last.response_code ? "HTTP " + last.response_code : "no answer") + (last.error ? ": " + last.error : "") + " (" + time(last.started) + ")"
        : delivery.next_attempt ? "first try due " + time(delivery.next_attempt) : "—");
      rows.append(row);
    });
  }

  function renderIntent() {
    const intent = current;
    $("detail-title").textContent = "Intent " + intent.id;
    const summary = $("summary");
    summary.replaceChildren();
    const fields = [
      ["Status", intent.status], ["Amount", money(intent.amount, intent.currency)], ["Capture method", intent.capture_method],
      ["Capturable", money(intent.amount_capturable, intent.currency)], ["Captured", money(intent.amount_captured, intent.currency)],
      ["Refunded", money(intent.amount_refunded, intent.currency)], ["Refundable", money(intent.amount_refundable, intent.currency)],
      ["Order", intent.order_reference || "—"], ["Last error", intent.last_error ? intent.last_error.code + ": " + intent.last_error.message : "—"],
      ["Created", time(intent.created)], ["Updated", time(intent.updated)],
    ];
    fields.forEach(([name, value]) => {
      const dt = document.createElement("dt"); dt.textContent = name;
      const dd = document.createElement("dd"); dd.textContent = value;
      summary.append(dt, dd);
    });
    // Only what the state allows; the server still has the last word and its errors are shown as they are.
    $("capture").disabled = intent.status !== "requires_capture";
    $("cancel").disabled = ["succeeded", "canceled", "processing"].includes(intent.status);
    $("refund").disabled = !(intent.amount_refundable > 0);
    $("resolve").disabled = intent.status !== "requires_merchant_action";
    renderDiagram(intent);

    const attempts = $("attempt-rows");
    attempts.replaceChildren();
    (intent.attempts || []).forEach((attempt) => {
      const row = document.createElement("tr");
      cell(row, attempt.id); cell(row, (attempt.card && attempt.card.network) || "—"); cell(row, (attempt.card && attempt.card.last4) || "—");
      cell(row, money(attempt.amount, attempt.currency));
      cell(row, attempt.status + (attempt.failure ? " (" + attempt.failure.code + (attempt.failure.decline_code ? ", " + attempt.failure.decline_code : "") + ")" : ""));
      attempts.append(row);
    });
    const refunds = $("refund-rows");
    refunds.replaceChildren();
    (intent.refunds || []).forEach((refund) => {
      const row = document.createElement("tr");
      cell(row, refund.id); cell(row, money(refund.amount, refund.currency)); cell(row, refund.status); cell(row, refund.reason || "—");
      refunds.append(row);
    });
    const events = $("events");
    events.replaceChildren();
    (intent.events || []).forEach((event) => {
      const item = document.createElement("li");
      item.textContent = time(event.created) + "  " + event.type + (event.to_status ? "  " + (event.from_status || "∅") + " → " + event.to_status : "");
      events.append(item);
    });
  }

  function amountField(id) {
    const text = $(id).value.trim();
    if (text === "") return { ok: true, value: undefined };
    if (!/^\d{1,12}$/.test(text)) return { ok: false };
    return { ok: true, value: parseInt(text, 10) };
  }

  async function act(method, path, body) {
    $("action-message").textContent = "";
    const answer = await call(method, path, body);
    if (answer.status !== 200) { $("action-message").textContent = errorText(answer); }
    await openIntent(current.id);
  }

  function capture() {
    const amount = amountField("capture-amount");
    if (!amount.ok) { $("action-message").textContent = "Enter the capture amount in minor units (digits), or leave it empty for all."; return; }
    act("POST", "/v1/payment_intents/" + encodeURIComponent(current.id) + "/capture", amount.value === undefined ? {} : { amount: amount.value });
  }

  function refund() {
    const amount = amountField("refund-amount");
    if (!amount.ok) { $("action-message").textContent = "Enter the refund amount in minor units (digits), or leave it empty for all."; return; }
    const body = { payment_intent: current.id };
    if (amount.value !== undefined) body.amount = amount.value;
    act("POST", "/v1/refunds", body);
  }

  function resolve() {
    act("POST", "/v1/payment_intents/" + encodeURIComponent(current.id) + "/resolve",
        { resolution: $("resolution").value, note: $("resolve-note").value });
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("sign-in-form").addEventListener("submit", signIn);
    $("sign-out").addEventListener("click", signOut);
    $("status-filter").addEventListener("change", () => loadList());
    $("refresh").addEventListener("click", () => loadList());
    $("older").addEventListener("click", () => loadList({ name: "starting_after", id: page.last }));
    $("newer").addEventListener("click", () => loadList({ name: "ending_before", id: page.first }));
    $("back").addEventListener("click", () => { show("detail", false); show("intents", true); loadList(); });
    $("reload").addEventListener("click", () => { if (current) openIntent(current.id); });
    $("capture").addEventListener("click", capture);
    $("cancel").addEventListener("click", () => act("POST", "/v1/payment_intents/" + encodeURIComponent(current.id) + "/cancel", {}));
    $("refund").addEventListener("click", refund);
    $("resolve").addEventListener("click", resolve);
    $("key").focus();
  });
})();
