// The device simulator: plays the payment-action notification against the real API.
// Plain script, no framework. Every value from the server is written with textContent, never
// as HTML: a merchant's product label is data, not markup.
"use strict";

(function () {
  const POLL_MS = 1000;
  // A press held this long on the banner expands it, as a long-press does on iOS.
  const LONG_PRESS_MS = 500;
  // A request without an answer by then is given up: /pay answers within the sheet's 25 s
  // budget whatever the bank does, so longer means the server or the network is gone.
  const REQUEST_TIMEOUT_MS = 40000;
  // The demo's merchant, as a real merchant's server would name itself on the sheet ("Pay Some Shop").
  const DEMO_MERCHANT_NAME = "Some Shop";
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
    unsentPay: null,     // {card, amount, body, key}: a pay whose answer never came, resent as it was
    outcomeUnknown: false, // the bank has not answered: nothing on screen may pay again
    callCount: 0,
    pollFailed: false,   // the last read of the checkout got no answer (said once on the status line)        // numbers the calls list, newest on top with the highest number
  };

  const $ = (id) => document.getElementById(id);

  // --- the API -------------------------------------------------------------------------

  async function call(method, path, body, bearer, extraHeaders) {
    const headers = { "Accept": "application/json" };
    if (bearer) headers["Authorization"] = "Bearer " + bearer;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    Object.assign(headers, extraHeaders || {});
    // Every way a request can fail ends here as an answer with status 0, never as an
    // exception: each caller then puts the words on screen and leaves its buttons usable.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    try {
      const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
                                           cache: "no-store", signal: controller.signal });
      logCall(method, path, response.status);
      let json = null;
      try { json = await response.json(); } catch (_) { json = null; }
      return { status: response.status, json };
    } catch (_) {
      logCall(method, path, "no answer");
      return { status: 0, json: null, unreachable: true };
    } finally {
      clearTimeout(timer);
    }
  }

  // Only the method, the path with its ids shortened, and the status: never a key or a body.
  function logCall(method, path, status) {
    const item = document.createElement("li");
    // Numbered by when it was made, not by its place: the newest is on top with the highest number.
    state.callCount += 1;
    item.value = state.callCount;
    item.textContent = method + " " + path.replace(/co_[A-Za-z0-9]+/g, "co_…") + " → " + status;
    const list = $("calls");
    list.prepend(item);
    while (list.children.length > 30) list.lastElementChild.remove();
  }

  const UNREACHABLE = "The server cannot be reached: check that paypanel serve is still running, then try again.";

  // The server's own words (they say what to do), first letter up; the code stays in the calls list's status.
  function apiMessage(answer, doing) {
    if (answer.unreachable) return UNREACHABLE;
    const error = answer.json && answer.json.error;
    if (error && error.message) return sentence(error.message);
    return sentence(doing + " failed with HTTP " + answer.status + ": reload the page to start again.");
  }

  function sentence(text) {
    const trimmed = text.trim();
    const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
    return /[.!?]$/.test(capital) ? capital : capital + ".";
  }

  // The idempotency key of one tap: 16 letters (the server refuses digit runs in keys). Bytes
  // of 234 (9 × 26) and above are skipped, so every letter is equally likely.
  function tapKey() {
    let letters = "";
    while (letters.length < 16) {
      const bytes = new Uint8Array(32);
      crypto.getRandomValues(bytes);
      for (const b of bytes) if (b < 234 && letters.length < 16) letters += String.fromCharCode(97 + b % 26);
    }
    return "tap-" + letters;
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

  // The merchant's display name, as Apple Pay shows it; never the merchant identifier, which
  // is an id for Apple, not a name for the payer. Empty when the checkout names none.
  function merchantName(checkout) {
    return (checkout.merchant_name || "").trim();
  }

  // "Pay Some Shop", or Apple Pay's own "Total" when there is no name to pay.
  function payLabel(checkout) {
    const name = merchantName(checkout);
    return name ? "Pay " + name : "Total";
  }

  function paidTo(checkout) {
    const name = merchantName(checkout);
    return money(state.selected, checkout.currency) + " paid" + (name ? " to " + name : "");
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
      setStatus(session.unreachable ? UNREACHABLE : apiMessage(session, "reading the demo session"));
      return;
    }
    state.demoKey = session.json.demo_key;
    state.wallet = session.json.wallet || [];
    await notify();
  }

  async function notify() {
    resetViews();
    setStatus("Creating a checkout…");
    const created = await call("POST", "/v1/checkouts", { merchant_name: DEMO_MERCHANT_NAME }, state.demoKey);
    if (created.status !== 200) {
      setStatus("Creating the checkout failed. " + apiMessage(created, "creating the checkout"));
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
    state.unsentPay = null;
    state.outcomeUnknown = false;
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
    if (answer.status !== 200 || !answer.json) {
      // Said once on the status line while nothing else is on screen; the next good read clears it.
      if (!state.busy && $("sheet").hidden && $("card-form-dialog").hidden && $("challenge").hidden) {
        setStatus("The checkout cannot be read now. " + apiMessage(answer, "reading the checkout"));
      }
      state.pollFailed = true;
      return;
    }
    if (state.pollFailed) {
      state.pollFailed = false;
      if (!state.outcomeUnknown) setStatus("The server answers again.");
    }
    if (state.outcomeUnknown) { settleUnknown(answer.json); return; }
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
    $("sheet-merchant").textContent = merchantName(checkout) || "—";
    $("sheet-pay-label").textContent = payLabel(checkout);
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

  // While a request is out the sheet waits for it (as Apple Pay's does); every request ends,
  // at the latest at REQUEST_TIMEOUT_MS, and then Cancel works again.
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
    const resend = state.unsentPay && state.unsentPay.card === chosen.value && state.unsentPay.amount === amount;
    let body;
    if (resend) {
      body = state.unsentPay.body;
    } else {
      // Another card or amount: a new payment (the checkout itself pays at most once).
      state.unsentPay = null;
      const token = await call("POST", "/v1/demo/tokens", { card: chosen.value, amount, currency: state.checkout.currency }, state.demoKey);
      if (token.status !== 200 || !token.json) {
        setSheetBusy(false);
        // Nothing reached /pay yet: say so, so the payer knows pressing Confirm again is safe.
        $("sheet-message").textContent = token.unreachable
          ? "The server cannot be reached, so nothing was paid: check that paypanel serve is still running, then press Confirm again."
          : "The card could not be prepared. " + apiMessage(token, "sealing the token");
        setStatus(token.unreachable ? "The server cannot be reached." : "The payment was not sent.");
        return;
      }
      body = { amount, payment_token: token.json.payment_token };
    }
    const answer = await pay(body, chosen.value);
    setSheetBusy(false);
    handlePayAnswer(answer, "sheet-message", "sheet");
  }

  // The device's call: the client secret, a fresh idempotency key per tap. A pay whose answer
  // never came is resent with its first key and body: if it did reach the server, the server
  // answers what it did then instead of paying a second time.
  async function pay(body, card) {
    const same = state.unsentPay && JSON.stringify(state.unsentPay.body) === JSON.stringify(body);
    const key = same ? state.unsentPay.key : tapKey();
    const answer = await call("POST", "/v1/checkouts/" + encodeURIComponent(state.checkout.id) + "/pay", body, state.clientSecret,
                              { "Idempotency-Key": key });
    state.unsentPay = answer.unreachable ? { card, amount: body.amount, body, key } : null;
    return answer;
  }

  // The payer's words once: the server's decline message already says what to do next.
  function declineText(error, dialogID) {
    const message = sentence(error.message || "Your card was declined.");
    if (/another card|try again/i.test(message)) return message;
    return message + (dialogID === "sheet" ? " Pick another card." : " Try another card.");
  }

  // success → done; 3-D Secure → what /pay answered; other failures stay on the form to pick again.
  function handlePayAnswer(answer, messageID, dialogID) {
    if (answer.unreachable) {
      $(messageID).textContent = "The server cannot be reached, so this payment's outcome is not known yet. Check that paypanel serve is running, then press " +
        (dialogID === "sheet" ? "Confirm" : "Pay") + " again: the same payment is asked again, never a second one.";
      setStatus("The server cannot be reached.");
      return;
    }
    if (answer.status !== 200 || !answer.json) {
      $(messageID).textContent = apiMessage(answer, "paying");
      setStatus("The payment was refused.");
      return;
    }
    const result = answer.json;
    if (result.sheet === "success") {
      finish("done", "Done", paidTo(state.checkout) + ". Payment intent " + result.payment_intent + ".", dialogID);
      return;
    }
    const error = result.error || {};
    if (error.code === "authentication_required") {
      openChallenge(result, dialogID);
      return;
    }
    if (error.code === "sheet_deadline_exceeded" || error.code === "outcome_unknown") {
      // The bank did not answer within the sheet's budget: whether it will approve is not
      // known, so nothing here may pay again (another card could pay twice). PayPanel asks the
      // bank and reverses a late approval; the page keeps reading the checkout to say the end.
      state.outcomeUnknown = true;
      finish("action", "Checking the payment", "Your bank has not answered yet, so the payment is being checked. " +
             "Do not pay again: if the bank approves it late, the charge is reversed. Payment intent " + result.payment_intent + ".", dialogID);
      startPolling();
      return;
    }
    if (result.status && result.status !== "open") {
      finish("failed", "Not paid", sentence(error.message || "The payment failed.") + " This checkout is " + result.status + ".", dialogID);
      return;
    }
    $(messageID).textContent = declineText(error, dialogID);
    setStatus("Declined: pick another card.");
  }

  // The checkout after an unknown outcome. Paid: it went through after all. Canceled or
  // expired: it can no longer be paid, so a new notification cannot pay twice. Still open: the
  // demo key cannot read the intent, so the page keeps saying "being checked" (a late approval
  // is reversed by PayPanel either way).
  function settleUnknown(checkout) {
    state.checkout = checkout;
    if (checkout.status === "paid") {
      state.outcomeUnknown = false;
      finish("done", "Done", paidTo(checkout) + " after the bank's late answer.", "result");
    } else if (checkout.status === "canceled" || checkout.status === "expired") {
      state.outcomeUnknown = false;
      finish("failed", "Not paid", "This checkout is " + checkout.status + "; if the bank approves late, the charge is reversed.", "result");
    }
  }

  // --- 3-D Secure ----------------------------------------------------------------------

  // The bank's check, answered by the device through its checkout (client secret): the page
  // never holds the secret key that /v1/payment_intents/{id}/challenge needs.
  function openChallenge(result, dialogID) {
    state.challengeFrom = dialogID;
    show(dialogID, false);
    $("challenge-merchant").textContent = payLabel(state.checkout);
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
      setStatus(answer.unreachable ? "The server cannot be reached." : "The bank's check was not sent.");
      return;
    }
    const result = answer.json;
    const from = state.challengeFrom;
    if (result.sheet === "success") {
      finish("done", "Done", paidTo(state.checkout) + " after 3-D Secure. Payment intent " + result.payment_intent + ".", "challenge");
      return;
    }
    // Declined (a failed check, or the bank declined after it): back to where the payer paid, to pick another card.
    show("challenge", false);
    show(from, true);
    const messageID = from === "sheet" ? "sheet-message" : "card-form-message";
    const error = result.error || {};
    $(messageID).textContent = declineText(error, from);
    setStatus("Declined: pick another card.");
    const checked = document.querySelector(from === "sheet" ? "#cards input:checked" : "#card-number");
    if (checked) checked.focus();
  }

  function finish(kind, title, detail, dialogID) {
    stopPolling();
    show(dialogID, false);
    show("panel", false);
    $("result").className = "result result-" + kind;
    $("result-mark").textContent = kind === "done" ? "✓" : kind === "action" ? "…" : "!";
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
    ["card-number", "card-expiry"].forEach((id) => $(id).removeAttribute("aria-invalid"));
    show("card-form-dialog", true);
    $("card-number").focus();
  }

  function closeCardForm() {
    if (state.busy) return;
    show("card-form-dialog", false);
    if (state.opener) state.opener.focus();
  }

  function refuseField(id, message) {
    $("card-form-message").textContent = message;
    $(id).setAttribute("aria-invalid", "true");
    $(id).focus();
    setStatus("Check the card form.");
  }

  // The checks of CardNumber (Sources/PayPanel/Processor/CardNumber.swift), with its words; a
  // message shows at most the last four digits.
  function cardNumberProblem(text) {
    const digits = text.replace(/[ -]/g, "");
    if (digits === "") return { problem: "The card number is empty: enter the 12 to 19 digits on the card." };
    if (!/^[0-9]+$/.test(digits)) return { problem: "The card number may only contain digits (spaces and dashes between groups are fine)." };
    if (digits.length < 12 || digits.length > 19) return { problem: "The card number has " + digits.length + " digits; card numbers have 12 to 19." };
    if (!passesLuhn(digits)) return { problem: "The card number ending in " + digits.slice(-4) + " is mistyped (it fails the Luhn check): check the digits." };
    return { digits };
  }

  // Luhn: from the right, every second digit doubled (minus 9 above 9); the sum ends in 0.
  function passesLuhn(digits) {
    let sum = 0;
    for (let index = 0; index < digits.length; index += 1) {
      let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
      if (index % 2 === 1) { digit *= 2; if (digit > 9) digit -= 9; }
      sum += digit;
    }
    return sum % 10 === 0;
  }

  // MM/YY or MM/YYYY as CardExpiry reads it; a card past its month is refused as the bank would.
  function expiryProblem(text) {
    const match = /^([0-9]{2})\/([0-9]{2}|[0-9]{4})$/.exec(text);
    const month = match ? parseInt(match[1], 10) : 0;
    if (!match || month < 1 || month > 12) {
      return { problem: "Expiry " + JSON.stringify(text) + " is not a month and year: write MM/YY, such as 12/30." };
    }
    const year = match[2].length === 2 ? 2000 + parseInt(match[2], 10) : parseInt(match[2], 10);
    const now = new Date();
    if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) {
      return { problem: "Your card has expired (" + match[1] + "/" + match[2].slice(-2) + "). Try another card." };
    }
    return { month, year };
  }

  async function submitCardForm(event) {
    event.preventDefault();
    if (state.busy) return;
    // Checked here before anything is sent, in the words of the command-line card form.
    const number = cardNumberProblem($("card-number").value);
    if (number.problem) { refuseField("card-number", number.problem); return; }
    const expiry = expiryProblem($("card-expiry").value.trim());
    if (expiry.problem) { refuseField("card-expiry", expiry.problem); return; }
    const card = { number: number.digits, exp_month: expiry.month, exp_year: expiry.year };
    const holder = $("card-holder").value.trim();
    if (holder) card.holder_name = holder;
    state.busy = true;
    $("card-form-submit").disabled = true;
    $("card-form-submit").textContent = "Processing…";
    setStatus("Processing…");
    const answer = await pay({ amount: state.selected, card });
    ["card-number", "card-expiry"].forEach((id) => $(id).removeAttribute("aria-invalid"));
    state.busy = false;
    $("card-form-submit").disabled = false;
    $("card-form-submit").textContent = "Pay";
    handlePayAnswer(answer, "card-form-message", "card-form-dialog");
  }

  // --- dismiss -------------------------------------------------------------------------

  function dismiss() {
    if (state.outcomeUnknown) {
      // No new notification while the bank's answer is pending: it could pay a second time.
      show("result", false);
      setStatus("The payment is still being checked; this page shows the outcome when it is known.");
      return;
    }
    resetViews();
    setStatus("Dismissed. Ask for a new notification to pay again.");
    show("again", true);
    $("again").focus();
  }

  // --- wiring --------------------------------------------------------------------------

  // A modal dialog keeps Tab inside it (aria-modal): focus never wanders to the page behind.
  function keepFocusInDialog(event) {
    const dialog = ["sheet", "challenge", "card-form-dialog"].map($).find((element) => !element.hidden);
    if (!dialog) return;
    const stops = Array.from(dialog.querySelectorAll("button, input")).filter((element) =>
      !element.disabled && element.getClientRects().length > 0 && !(element.type === "radio" && !element.checked));
    if (stops.length === 0) return;
    const first = stops[0], last = stops[stops.length - 1];
    const inside = dialog.contains(document.activeElement);
    if (event.shiftKey && (!inside || document.activeElement === first)) { event.preventDefault(); last.focus(); }
    else if (!event.shiftKey && (!inside || document.activeElement === last)) { event.preventDefault(); first.focus(); }
  }

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
      if (event.key === "Tab") { keepFocusInDialog(event); return; }
      if (event.key !== "Escape") return;
      if (!$("sheet").hidden) closeSheet();
      else if (!$("card-form-dialog").hidden) closeCardForm();
    });
    start().catch((error) => setStatus(error.message));
  });
})();
