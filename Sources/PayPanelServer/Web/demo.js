// The device simulator: plays the payment-action notification against the real API.
// Plain script, no framework. Every value from the server is written with textContent, never
// as HTML: a merchant's product label is data, not markup.
"use strict";

(function () {
  const POLL_MS = 1000;
  // A press held this long on the banner expands it, as a long-press does on iOS.
  const LONG_PRESS_MS = 500;
  const state = {
    demoKey: null,       // from GET /demo/session; in memory only
    wallet: [],          // [{id, network, last4, behaviour}]
    checkout: null,      // the latest GET /v1/checkouts/{id}
    clientSecret: null,  // from the create answer; pays this one checkout only
    selected: null,      // the chosen amount (minor units); kept across updates
    pollTimer: null,
    lastSeen: null,      // the last GET's JSON text, to draw only changes
    busy: false,
    opener: null,        // the element to focus when a dialog closes
    pressTimer: null,    // the pending long-press on the banner
    challengeFrom: null, // the dialog (sheet or card form) that paid into a 3-D Secure challenge
  };

  const $ = (id) => document.getElementById(id);

  // --- the API -------------------------------------------------------------------------

  async function call(method, path, body, bearer, extraHeaders) {
    const headers = { "Accept": "application/json" };
    if (bearer) headers["Authorization"] = "Bearer " + bearer;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    Object.assign(headers, extraHeaders || {});
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
    } catch (error) {
      logCall(method, path, "network error");
      throw new Error("the server cannot be reached (" + error.message + "): is paypanel serve still running?");
    }
    logCall(method, path, response.status);
    let json = null;
    try { json = await response.json(); } catch (_) { json = null; }
    return { status: response.status, json };
  }

  // Only the method, the path with its ids shortened, and the status: never a key or a body.
  function logCall(method, path, status) {
    const item = document.createElement("li");
    item.textContent = method + " " + path.replace(/co_[A-Za-z0-9]+/g, "co_…") + " → " + status;
    const list = $("calls");
    list.prepend(item);
    while (list.children.length > 30) list.lastElementChild.remove();
  }

  function apiMessage(answer, doing) {
    const error = answer.json && answer.json.error;
    if (error && error.message) return error.message + " (" + error.code + ")";
    return doing + " failed with HTTP " + answer.status;
  }

  // The idempotency key of one tap: letters only (the server refuses digit runs in keys).
  function tapKey() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return "tap-" + Array.from(bytes, (b) => String.fromCharCode(97 + (b % 26))).join("");
  }

  // --- money ---------------------------------------------------------------------------

  function money(minor, currency) {
    let format;
    try {
      format = new Intl.NumberFormat("en-US", { style: "currency", currency });
    } catch (_) {
      return (minor / 100).toFixed(2) + " " + currency;
    }
    const digits = format.resolvedOptions().maximumFractionDigits;
    return format.format(minor / Math.pow(10, digits));
  }

  function merchantName(checkout) {
    return checkout.merchant_name || checkout.merchant_identifier.replace(/^merchant\./, "");
  }

  // --- status and the lock screen ------------------------------------------------------

  function setStatus(text) { $("status").textContent = text; }

  function show(id, visible) { $(id).hidden = !visible; }

  function tickClock() {
    const now = new Date();
    $("lock-time").textContent = now.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" }).replace(/\s?[AP]M$/, "");
    $("lock-date").textContent = now.toLocaleDateString("en-US", { weekday: "long", month: "long", day: "numeric" });
  }

  // --- start: the session, then a checkout (the notification) ---------------------------

  async function start() {
    tickClock();
    setInterval(tickClock, 15000);
    const session = await call("GET", "/demo/session");
    if (session.status !== 200 || !session.json) {
      setStatus("This page needs paypanel serve --test-root (GET /demo/session answered " + session.status + ").");
      return;
    }
    state.demoKey = session.json.demo_key;
    state.wallet = session.json.wallet || [];
    await notify();
  }

  async function notify() {
    resetViews();
    setStatus("Creating a checkout…");
    const created = await call("POST", "/v1/checkouts", {}, state.demoKey);
    if (created.status !== 200) {
      setStatus("Creating the checkout failed: " + apiMessage(created, "creating the checkout"));
      show("again", true);
      return;
    }
    state.clientSecret = created.json.client_secret;
    delete created.json.client_secret;
    state.checkout = created.json;
    // A GET answers the create's object less its client secret: nothing to redraw until it changes.
    state.lastSeen = JSON.stringify(created.json);
    state.selected = defaultAmount(state.checkout);
    $("checkout-id").textContent = state.checkout.id;
    renderBanner();
    setStatus("A notification arrived.");
    show("banner", true);
    startPolling();
  }

  function resetViews() {
    stopPolling();
    ["banner", "panel", "sheet", "card-form-dialog", "challenge", "result", "again"].forEach((id) => show(id, false));
    $("banner").setAttribute("aria-expanded", "false");
    state.busy = false;
  }

  function defaultAmount(checkout) {
    const options = checkout.amount_options || [];
    const index = Math.min(Math.max((checkout.default_segment || 1) - 1, 0), options.length - 1);
    return options[index];
  }

  function renderBanner() {
    const alert = (state.checkout.push_payload && state.checkout.push_payload.aps && state.checkout.push_payload.aps.alert) || {};
    $("banner-title").textContent = alert.title || state.checkout.product_label || "Payment";
    $("banner-subtitle").textContent = alert.subtitle || merchantName(state.checkout);
    $("banner-body").textContent = alert.body || "";
  }

  // --- the panel -----------------------------------------------------------------------

  // A long-press (pointer held LONG_PRESS_MS) expands the banner too; a press that moves off
  // or ends sooner is an ordinary click. The keyboard's way stays the button's Enter or Space.
  function startPress(event) {
    if (event.button !== undefined && event.button !== 0) return;
    cancelPress();
    state.pressTimer = setTimeout(() => {
      state.pressTimer = null;
      if ($("banner").hidden) return;
      expand();
      setStatus("Long-press: the panel is open.");
    }, LONG_PRESS_MS);
  }

  function cancelPress() {
    if (state.pressTimer) clearTimeout(state.pressTimer);
    state.pressTimer = null;
  }

  function expand() {
    cancelPress();
    if ($("banner").hidden) return;
    $("banner").setAttribute("aria-expanded", "true");
    show("banner", false);
    renderPanel();
    show("panel", true);
    setStatus("The panel is open.");
    const checked = document.querySelector("#segments input:checked");
    (checked || $("buy")).focus();
  }

  // Draws the panel from state.checkout, keeping the chosen amount when it is still offered.
  function renderPanel() {
    const checkout = state.checkout;
    const options = checkout.amount_options || [];
    if (!options.includes(state.selected)) state.selected = defaultAmount(checkout);
    $("panel-title").textContent = checkout.product_label || "Payment";
    const row = $("segments");
    const focusedValue = document.activeElement && document.activeElement.name === "amount" ? document.activeElement.value : null;
    row.replaceChildren();
    options.forEach((amount, index) => {
      const id = "amount-" + index;
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "amount";
      input.id = id;
      input.value = String(amount);
      input.checked = amount === state.selected;
      input.addEventListener("change", () => { state.selected = amount; renderTotal(); });
      const label = document.createElement("label");
      label.htmlFor = id;
      label.className = "segment";
      label.textContent = money(amount, checkout.currency).replace(/\.00$/, "");
      label.setAttribute("data-amount", String(amount));
      row.append(input, label);
      if (focusedValue === input.value) input.focus();
    });
    renderTotal();
    const open = checkout.status === "open";
    $("buy").disabled = !open;
    $("pay-in-app").disabled = !open;
    $("panel-note").textContent = open ? "" : "This checkout is " + checkout.status + ".";
  }

  function renderTotal() {
    $("total").textContent = money(state.selected, state.checkout.currency);
  }

  // Polling, not server-sent events: one GET a second while the notification is on screen is
  // cheap, survives proxies and reconnects without code, and needs no long-lived connection.
  function startPolling() {
    stopPolling();
    state.pollTimer = setInterval(poll, POLL_MS);
  }

  function stopPolling() {
    if (state.pollTimer) clearInterval(state.pollTimer);
    state.pollTimer = null;
  }

  async function poll() {
    if (!state.checkout || state.busy) return;
    const answer = await call("GET", "/v1/checkouts/" + encodeURIComponent(state.checkout.id), undefined, state.demoKey);
    if (answer.status !== 200 || !answer.json) return;
    // The whole object, not `updated`: that is in seconds, and two changes can share one.
    const seen = JSON.stringify(answer.json);
    if (seen === state.lastSeen) return;
    state.lastSeen = seen;
    state.checkout = answer.json;
    renderBanner();
    if (!$("panel").hidden) {
      renderPanel();
      // Paying changes the checkout too (its intent): say "updated" only while nothing else is on screen.
      if ($("sheet").hidden && $("challenge").hidden && $("card-form-dialog").hidden) {
        setStatus("The checkout was updated: the panel shows its new options.");
      }
    }
    if (!$("sheet").hidden) renderSheet();
  }

  // --- the Apple Pay sheet -------------------------------------------------------------

  function walletCards() {
    const networks = (state.checkout.supported_networks || []).map((n) => n.toLowerCase());
    return state.wallet.filter((card) => networks.includes(card.network.toLowerCase()));
  }

  function networkName(network) {
    const names = { visa: "Visa", mastercard: "Mastercard", amex: "American Express", discover: "Discover" };
    return names[network.toLowerCase()] || network;
  }

  function openSheet() {
    state.opener = $("buy");
    renderSheet(true);
    $("sheet-message").textContent = "";
    setSheetBusy(false);
    show("sheet", true);
    const checked = document.querySelector("#cards input:checked");
    (checked || $("confirm")).focus();
  }

  function renderSheet(fresh) {
    const checkout = state.checkout;
    $("sheet-merchant").textContent = merchantName(checkout);
    $("sheet-pay-label").textContent = "Pay " + merchantName(checkout);
    $("sheet-total").textContent = money(state.selected, checkout.currency);
    if (!fresh) return;
    const list = $("cards");
    list.replaceChildren();
    const cards = walletCards();
    cards.forEach((card, index) => {
      const id = "wallet-" + card.id;
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "card";
      input.id = id;
      input.value = card.id;
      input.checked = index === 0;
      const label = document.createElement("label");
      label.htmlFor = id;
      label.className = "wallet-card";
      label.setAttribute("data-card", card.id);
      const name = document.createElement("span");
      name.textContent = networkName(card.network) + " •••• " + card.last4;
      const what = document.createElement("small");
      what.textContent = card.behaviour;
      label.append(name, what);
      list.append(input, label);
    });
    if (cards.length === 0) $("sheet-message").textContent = "No card in the test wallet takes this request's networks.";
    $("confirm").disabled = cards.length === 0;
  }

  function setSheetBusy(busy) {
    state.busy = busy;
    $("confirm").disabled = busy;
    $("confirm").textContent = busy ? "Processing…" : "Confirm";
    document.querySelectorAll("#cards input").forEach((input) => { input.disabled = busy; });
  }

  function closeSheet() {
    if (state.busy) return;
    show("sheet", false);
    if (state.opener) state.opener.focus();
  }

  async function confirmSheet() {
    const chosen = document.querySelector("#cards input:checked");
    if (!chosen || state.busy) return;
    setSheetBusy(true);
    $("sheet-message").textContent = "";
    setStatus("Processing…");
    const amount = state.selected;
    const token = await call("POST", "/v1/demo/tokens", { card: chosen.value, amount, currency: state.checkout.currency }, state.demoKey);
    if (token.status !== 200) {
      setSheetBusy(false);
      $("sheet-message").textContent = "Sealing the token failed: " + apiMessage(token, "sealing the token");
      return;
    }
    const answer = await pay({ amount, payment_token: token.json.payment_token });
    setSheetBusy(false);
    handlePayAnswer(answer, "sheet-message", "sheet");
  }

  // The device's call: the client secret, a fresh idempotency key per tap.
  function pay(body) {
    return call("POST", "/v1/checkouts/" + encodeURIComponent(state.checkout.id) + "/pay", body, state.clientSecret,
                { "Idempotency-Key": tapKey() });
  }

  // success → done; 3-D Secure → what /pay answered; other failures stay on the form to pick again.
  function handlePayAnswer(answer, messageID, dialogID) {
    if (answer.status !== 200 || !answer.json) {
      $(messageID).textContent = apiMessage(answer, "paying");
      setStatus("The payment was refused.");
      return;
    }
    const result = answer.json;
    if (result.sheet === "success") {
      finish("done", "Done", money(state.selected, state.checkout.currency) + " paid to " + merchantName(state.checkout) +
             ". Payment intent " + result.payment_intent + ".", dialogID);
      return;
    }
    const error = result.error || {};
    if (error.code === "authentication_required") {
      openChallenge(result, dialogID);
      return;
    }
    if (error.code === "sheet_deadline_exceeded") {
      // The bank did not answer within the sheet's budget: the sheet is told failure; a late
      // approval is reversed by PayPanel. Nothing for the payer to pick: dismiss.
      finish("failed", "Payment not completed", (error.message || "The bank did not answer in time.") +
             " Payment intent " + result.payment_intent + " is still processing; if the bank approves late, PayPanel reverses it.", dialogID);
      return;
    }
    if (result.status && result.status !== "open") {
      finish("failed", "Not paid", (error.message || "The payment failed.") + " The checkout is " + result.status + ".", dialogID);
      return;
    }
    $(messageID).textContent = (error.message || "The payment failed.") + (error.code ? " (" + error.code + ")" : "") +
      (dialogID === "sheet" ? " Pick another card." : " Try another card.");
    setStatus("Declined: pick another card.");
  }

  // --- 3-D Secure ----------------------------------------------------------------------

  // The bank's check, answered by the device through its checkout (client secret): the page
  // never holds the secret key that /v1/payment_intents/{id}/challenge needs.
  function openChallenge(result, dialogID) {
    state.challengeFrom = dialogID;
    show(dialogID, false);
    $("challenge-merchant").textContent = "Pay " + merchantName(state.checkout);
    $("challenge-total").textContent = money(state.selected, state.checkout.currency);
    $("challenge-message").textContent = "";
    setChallengeBusy(false);
    show("challenge", true);
    setStatus("3-D Secure: the bank asks to confirm the payment (intent " + result.payment_intent + ").");
    $("challenge-pass").focus();
  }

  function setChallengeBusy(busy) {
    state.busy = busy;
    $("challenge-pass").disabled = busy;
    $("challenge-fail").disabled = busy;
  }

  async function answerChallenge(passed) {
    if (state.busy) return;
    setChallengeBusy(true);
    setStatus(passed ? "3-D Secure passed: processing…" : "3-D Secure failed: processing…");
    const answer = await call("POST", "/v1/checkouts/" + encodeURIComponent(state.checkout.id) + "/challenge", { passed },
                              state.clientSecret, { "Idempotency-Key": tapKey() });
    setChallengeBusy(false);
    if (answer.status !== 200 || !answer.json) {
      $("challenge-message").textContent = apiMessage(answer, "answering the challenge");
      return;
    }
    const result = answer.json;
    const from = state.challengeFrom;
    if (result.sheet === "success") {
      finish("done", "Done", money(state.selected, state.checkout.currency) + " paid to " + merchantName(state.checkout) +
             " after 3-D Secure. Payment intent " + result.payment_intent + ".", "challenge");
      return;
    }
    // Declined (a failed check, or the bank declined after it): back to where the payer paid, to pick another card.
    show("challenge", false);
    show(from, true);
    const messageID = from === "sheet" ? "sheet-message" : "card-form-message";
    const error = result.error || {};
    $(messageID).textContent = "Declined after 3-D Secure: " + (error.message || "the payment failed.") +
      (error.code ? " (" + error.code + ")" : "") + (from === "sheet" ? " Pick another card." : " Try another card.");
    setStatus("Declined: pick another card.");
    const checked = document.querySelector(from === "sheet" ? "#cards input:checked" : "#card-number");
    if (checked) checked.focus();
  }

  function finish(kind, title, detail, dialogID) {
    stopPolling();
    show(dialogID, false);
    show("panel", false);
    $("result").className = "result result-" + kind;
    $("result-mark").textContent = kind === "done" ? "✓" : "!";
    $("result-title").textContent = title;
    $("result-detail").textContent = detail;
    show("result", true);
    setStatus(title + ".");
    $("result").focus();
  }

  // --- Pay in app ----------------------------------------------------------------------

  function openCardForm() {
    state.opener = $("pay-in-app");
    $("card-form-total").textContent = money(state.selected, state.checkout.currency);
    $("card-form-message").textContent = "";
    show("card-form-dialog", true);
    $("card-number").focus();
  }

  function closeCardForm() {
    if (state.busy) return;
    show("card-form-dialog", false);
    if (state.opener) state.opener.focus();
  }

  async function submitCardForm(event) {
    event.preventDefault();
    if (state.busy) return;
    const number = $("card-number").value.replace(/[\s-]/g, "");
    const month = parseInt($("card-month").value, 10);
    let year = parseInt($("card-year").value, 10);
    if (year < 100) year += 2000;
    if (!/^\d{12,19}$/.test(number)) { $("card-form-message").textContent = "Enter the card number: 12 to 19 digits."; $("card-number").focus(); return; }
    if (!(month >= 1 && month <= 12)) { $("card-form-message").textContent = "Enter the month as 1 to 12."; $("card-month").focus(); return; }
    if (!(year >= 2000 && year <= 2099)) { $("card-form-message").textContent = "Enter the year, such as 2030."; $("card-year").focus(); return; }
    const card = { number, exp_month: month, exp_year: year };
    const holder = $("card-holder").value.trim();
    if (holder) card.holder_name = holder;
    state.busy = true;
    $("card-form-submit").disabled = true;
    $("card-form-submit").textContent = "Processing…";
    setStatus("Processing…");
    const answer = await pay({ amount: state.selected, card });
    state.busy = false;
    $("card-form-submit").disabled = false;
    $("card-form-submit").textContent = "Pay";
    handlePayAnswer(answer, "card-form-message", "card-form-dialog");
  }

  // --- dismiss -------------------------------------------------------------------------

  function dismiss() {
    resetViews();
    setStatus("Dismissed. Ask for a new notification to pay again.");
    show("again", true);
    $("again").focus();
  }

  // --- wiring --------------------------------------------------------------------------

  document.addEventListener("DOMContentLoaded", () => {
    $("banner").addEventListener("click", expand);
    $("banner").addEventListener("pointerdown", startPress);
    ["pointerup", "pointerleave", "pointercancel"].forEach((name) => $("banner").addEventListener(name, cancelPress));
    // A long-press on a touch screen would open the context menu instead.
    $("banner").addEventListener("contextmenu", (event) => event.preventDefault());
    $("challenge-pass").addEventListener("click", () => answerChallenge(true));
    $("challenge-fail").addEventListener("click", () => answerChallenge(false));
    $("buy").addEventListener("click", openSheet);
    $("pay-in-app").addEventListener("click", openCardForm);
    $("dismiss-panel").addEventListener("click", dismiss);
    $("dismiss-result").addEventListener("click", dismiss);
    $("again").addEventListener("click", () => { notify(); });
    $("cancel-sheet").addEventListener("click", closeSheet);
    $("confirm").addEventListener("click", confirmSheet);
    $("cancel-card-form").addEventListener("click", closeCardForm);
    $("card-form").addEventListener("submit", submitCardForm);
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      if (!$("sheet").hidden) closeSheet();
      else if (!$("card-form-dialog").hidden) closeCardForm();
    });
    start().catch((error) => setStatus(error.message));
  });
})();
