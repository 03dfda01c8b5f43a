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
  // An id may wrap anywhere in the side-by-side ledgers (console.css), so they need no scrolling.
  function idCell(row, text) { const td = cell(row, text); td.className = "id"; return td; }

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
    await loadStatuses();
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

  // The filter offers exactly the statuses the list route takes: the enum of its `status`
  // parameter in the server's own OpenAPI document, so the page cannot drift from the server.
  async function loadStatuses() {
    const select = $("status-filter");
    const chosen = select.value;
    const answer = await call("GET", "/openapi.json");
    const operation = answer.status === 200 && answer.json && answer.json.paths && answer.json.paths["/v1/payment_intents"]
      && answer.json.paths["/v1/payment_intents"].get;
    const parameter = operation && (operation.parameters || []).find((p) => p.name === "status" && p.in === "query");
    const statuses = parameter && parameter.schema && parameter.schema.enum;
    if (!Array.isArray(statuses)) {
      $("list-message").textContent = "The status filter is unavailable: the server's /openapi.json did not list the statuses (" +
        errorText(answer) + "). Reload the page to try again; the list shows all statuses meanwhile.";
      select.replaceChildren(new Option("all", ""));
      return;
    }
    select.replaceChildren(new Option("all", ""), ...statuses.map((status) => new Option(status, status)));
    select.value = statuses.includes(chosen) ? chosen : "";
  }

  async function loadList(cursor) {
    const query = new URLSearchParams({ limit: "10" });
    const status = $("status-filter").value;
    $("intent-rows").removeAttribute("data-status"); // until this answer's rows are drawn
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
    // Which filter these rows answer: tests wait for it instead of for time to pass.
    rows.setAttribute("data-status", status || "all");
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
    // Another intent: nothing typed for the last one may act on this one (a stale 6.00 would capture it).
    if (!current || current.id !== answer.json.id) clearActions();
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
  //
  // The layout is chosen so that no arrow crosses a box it does not join: processing in the
  // middle with the states it moves to around it; what only requires_capture leads to
  // (expired) directly under it, apart from succeeded; requires_merchant_action under
  // processing, where its five moves reach their states without passing another. The one move
  // that would cross a box in a straight line (requires_action → canceled, past
  // requires_payment_method) goes round it on the left, through `via`. Tests/browser checks
  // the rendered geometry (no edge through a box, no two arrowheads on one spot).
  const STATES = {
    requires_action: [150, 40], requires_payment_method: [150, 170], canceled: [150, 300],
    processing: [440, 170], requires_merchant_action: [440, 300],
    requires_capture: [730, 40], expired: [730, 170], succeeded: [730, 300],
  };
  const LEFT_LANE = 22; // x of the path round the left column
  const MOVES = [
    ["requires_payment_method", "processing"], ["requires_payment_method", "canceled"],
    ["requires_action", "processing"], ["requires_action", "requires_payment_method"],
    ["requires_action", "canceled", [[LEFT_LANE, 40], [LEFT_LANE, 300]]],
    ["processing", "requires_capture"], ["processing", "requires_merchant_action"], ["processing", "requires_payment_method"],
    ["processing", "requires_action"], ["processing", "succeeded"], ["processing", "canceled"],
    ["requires_capture", "processing"], ["requires_capture", "expired"],
    ["requires_merchant_action", "requires_payment_method"], ["requires_merchant_action", "canceled"],
    ["requires_merchant_action", "processing"], ["requires_merchant_action", "succeeded"], 
    // Bent through the gap right of processing, so it meets requires_capture on its left side,
    // apart from processing → requires_capture's arrowhead on its bottom.
    ["requires_merchant_action", "requires_capture", [[600, 105]]],
  ];
  const BOX = { width: 190, height: 34 };
  const VIEW = { width: 840, height: 330 };
  const SVG = "http://www.w3.org/2000/svg";

  function svg(name, attributes) {
    const element = document.createElementNS(SVG, name);
    Object.entries(attributes || {}).forEach(([key, value]) => element.setAttribute(key, String(value)));
    return element;
  }

  // How far a ray from `point` (inside the box around `centre`) goes along (dx, dy) before it
  // leaves the box: the arrow starts and ends on the border, never inside a box.
  function exitDistance(centre, point, dx, dy) {
    const limits = [];
    if (dx > 0) limits.push((centre[0] + BOX.width / 2 - point[0]) / dx);
    if (dx < 0) limits.push((centre[0] - BOX.width / 2 - point[0]) / dx);
    if (dy > 0) limits.push((centre[1] + BOX.height / 2 - point[1]) / dy);
    if (dy < 0) limits.push((centre[1] - BOX.height / 2 - point[1]) / dy);
    return Math.min(...limits);
  }

  // The points of one move: straight from border to border, or through `via` points.
  function movePoints(from, to, via) {
    const a = STATES[from], b = STATES[to];
    if (via) {
      // Leave and enter level with the first and last via point, on the side that faces it.
      const first = via[0], last = via[via.length - 1];
      const start = [a[0] + Math.sign(first[0] - a[0]) * BOX.width / 2, a[1]];
      const end = [b[0] + Math.sign(last[0] - b[0]) * BOX.width / 2, b[1]];
      return [start, ...via, end];
    }
    const dx = b[0] - a[0], dy = b[1] - a[1];
    const length = Math.hypot(dx, dy);
    // A move and its way back (processing ⇄ x) are drawn 5 px apart, each to its right, so
    // both arrowheads show.
    const back = MOVES.some(([f, t]) => f === to && t === from);
    const offset = back ? [(-dy / length) * 5, (dx / length) * 5] : [0, 0];
    const a2 = [a[0] + offset[0], a[1] + offset[1]], b2 = [b[0] + offset[0], b[1] + offset[1]];
    const out = exitDistance(a, a2, dx, dy), into = exitDistance(b, b2, -dx, -dy);
    return [[a2[0] + dx * out, a2[1] + dy * out], [b2[0] - dx * into, b2[1] - dy * into]];
  }

  function renderDiagram(intent) {
    const visited = new Set((intent.events || []).flatMap((event) => [event.from_status, event.to_status]).filter(Boolean));
    const root = svg("svg", { viewBox: "0 0 " + VIEW.width + " " + VIEW.height, role: "img", "aria-labelledby": "diagram-text" });
    const text = svg("title", { id: "diagram-text" });
    text.textContent = "State diagram: the intent is " + intent.status + (visited.size ? "; its history passed through " + Array.from(visited).join(", ") : "") + ".";
    const defs = svg("defs");
    const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "state-arrow" }));
    defs.append(marker);
    root.append(text, defs);
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
    // After the boxes: an arrowhead ends on its box's border and is drawn over nothing.
    MOVES.forEach(([from, to, via]) => {
      const points = movePoints(from, to, via);
      const d = points.map((p, index) => (index ? "L" : "M") + p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ");
      root.append(svg("path", { d, class: "state-edge", "marker-end": "url(#arrow)", "data-from": from, "data-to": to }));
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
      idCell(row, entry.id); idCell(row, entry.attempt); idCell(row, entry.operation + (entry.refund ? " " + entry.refund : ""));
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
    renderActionLabels(intent);

    const attempts = $("attempt-rows");
    attempts.replaceChildren();
    (intent.attempts || []).forEach((attempt) => {
      const row = document.createElement("tr");
      idCell(row, attempt.id); cell(row, (attempt.card && attempt.card.network) || "—"); cell(row, (attempt.card && attempt.card.last4) || "—");
      cell(row, money(attempt.amount, attempt.currency));
      cell(row, attempt.status + (attempt.failure ? " (" + attempt.failure.code + (attempt.failure.decline_code ? ", " + attempt.failure.decline_code : "") + ")" : ""));
      attempts.append(row);
    });
    const refunds = $("refund-rows");
    refunds.replaceChildren();
    (intent.refunds || []).forEach((refund) => {
      const row = document.createElement("tr");
      idCell(row, refund.id); cell(row, money(refund.amount, refund.currency)); cell(row, refund.status); cell(row, refund.reason || "—");
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

  function clearActions() {
    ["capture-amount", "refund-amount", "resolve-note"].forEach((id) => { $(id).value = ""; });
    $("resolution").selectedIndex = 0;
    $("action-message").textContent = "";
    $("action-done").textContent = "";
  }

  // The digits after the decimal point of a currency (2 for USD, 0 for JPY), as money() shows it.
  function fractionDigits(currency) {
    try { return new Intl.NumberFormat("en-US", { style: "currency", currency }).resolvedOptions().maximumFractionDigits; }
    catch (_) { return 2; }
  }

  // Amounts are typed as the page shows them, in major units ("6" or "6.00" for $6.00), and
  // sent in minor units; empty means "all". Whole numbers only from here on: no float rounding.
  function amountField(id) {
    const text = $(id).value.trim().replace(/^[^0-9.]+/, "");
    if (text === "") return { ok: true, value: undefined };
    const digits = fractionDigits(current.currency);
    const match = /^(\d{1,10})(?:\.(\d*))?$/.exec(text);
    if (!match || (match[2] || "").length > digits) return { ok: false, digits };
    const fraction = (match[2] || "").padEnd(digits, "0");
    return { ok: true, value: parseInt(match[1] + fraction, 10) };
  }

  function amountProblem(what, digits) {
    const example = digits ? "6." + "0".repeat(digits) : "600";
    return "Enter the " + what + " amount in " + current.currency + " as the page shows it (such as " + example +
      (digits ? ", at most " + digits + " digits after the point" : ", no decimals") + "), or leave it empty for all.";
  }

  // One action: the server's error as it is, or what was done, then the intent read again.
  async function act(method, path, body, done) {
    $("action-message").textContent = "";
    $("action-done").textContent = "";
    const answer = await call(method, path, body);
    if (answer.status !== 200) {
      $("action-message").textContent = errorText(answer);
    } else {
      ["capture-amount", "refund-amount", "resolve-note"].forEach((id) => { $(id).value = ""; });
    }
    const id = current.id;
    await openIntent(id);
    if (answer.status === 200) $("action-done").textContent = done(answer.json);
  }

  function capture() {
    const amount = amountField("capture-amount");
    if (!amount.ok) { $("action-message").textContent = amountProblem("capture", amount.digits); return; }
    act("POST", "/v1/payment_intents/" + encodeURIComponent(current.id) + "/capture", amount.value === undefined ? {} : { amount: amount.value },
        (intent) => "Captured " + money(intent.amount_captured, intent.currency) + " of " + money(intent.amount, intent.currency) +
          "; the intent is " + intent.status + ".");
  }

  function refund() {
    const amount = amountField("refund-amount");
    if (!amount.ok) { $("action-message").textContent = amountProblem("refund", amount.digits); return; }
    const body = { payment_intent: current.id };
    if (amount.value !== undefined) body.amount = amount.value;
    act("POST", "/v1/refunds", body,
        (made) => "Refund " + made.id + " of " + money(made.amount, made.currency) + ": " + made.status + ".");
  }

  function cancel() {
    act("POST", "/v1/payment_intents/" + encodeURIComponent(current.id) + "/cancel", {},
        (intent) => "Canceled: the intent is " + intent.status + (intent.capture_method === "manual" ? " (the authorization is voided)." : "."));
  }

  function resolve() {
    const resolution = $("resolution").value;
    act("POST", "/v1/payment_intents/" + encodeURIComponent(current.id) + "/resolve",
        { resolution, note: $("resolve-note").value },
        (intent) => "Resolved as " + resolution + ": the intent is " + intent.status + ".");
  }

  // The labels name the intent's currency, so it is clear which unit the fields take.
  function renderActionLabels(intent) {
    $("capture-label").textContent = "Capture (" + intent.currency + ", empty: all capturable)";
    $("refund-label").textContent = "Refund (" + intent.currency + ", empty: all refundable)";
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
    $("cancel").addEventListener("click", cancel);
    $("refund").addEventListener("click", refund);
    $("resolve").addEventListener("click", resolve);
    $("key").focus();
  });
})();
