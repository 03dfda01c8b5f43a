"""Schemathesis hooks for PayPanel's API: the rules across fields that no JSON Schema states.

Each hook changes only *positive* cases (data the schema calls valid), and only so that the
case also meets a rule the server checks across fields or across requests. Negative cases are
left alone, so the server's refusals are still tested. Every rule here is in docs/http-api.md:

- an Idempotency-Key is one request's: the same key with other parameters is refused (Stripe's
  idempotency_key_reused), so each generated request gets a key of its own;
- a list takes starting_after or ending_before, not both;
- a card number passes the Luhn check (the generated digits get the right check digit);
- a checkout's default_segment is one of its amount_options, and its expires_at is after now;
- an Apple Pay token is signed and encrypted, which generated data never is: positive cases with
  one are dropped (the token's refusals have tests of their own, with real and sealed tokens).
"""
import time
import uuid

import schemathesis


def _positive(context, case):
    meta = getattr(case, "meta", None)
    return meta is None or not meta.generation.mode.is_negative


def _luhn_complete(digits):
    """`digits` with its last digit replaced by the Luhn check digit of the rest."""
    body = [int(d) for d in digits[:-1]]
    total = 0
    for index, digit in enumerate(reversed(body)):
        if index % 2 == 0:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return digits[:-1] + str((10 - total % 10) % 10)


def _fix_card(card):
    if isinstance(card, dict) and isinstance(card.get("number"), str) and card["number"].isdigit() and len(card["number"]) >= 12:
        card["number"] = _luhn_complete(card["number"])


@schemathesis.hook
def filter_case(context, case):
    if not _positive(context, case) or not isinstance(case.body, dict):
        return True
    method = case.body.get("payment_method")
    return "payment_token" not in case.body and not (isinstance(method, dict) and method.get("type") == "apple_pay")


@schemathesis.hook
def map_case(context, case):
    if not _positive(context, case):
        return case
    headers = case.headers or {}
    if "Idempotency-Key" in headers:
        headers["Idempotency-Key"] = "schemathesis-" + uuid.uuid4().hex
    query = case.query or {}
    if query.get("starting_after") is not None and query.get("ending_before") is not None:
        del query["ending_before"]
    body = case.body
    if isinstance(body, dict):
        _fix_card(body.get("payment_method"))
        _fix_card(body.get("card"))
        path = case.operation.path
        if path.startswith("/v1/checkouts") and not path.endswith(("/pay", "/challenge", "/cancel")):
            options = body.get("amount_options")
            segment = body.get("default_segment")
            if isinstance(segment, (int, float)):
                if isinstance(options, list):
                    body["default_segment"] = min(segment, len(options))
                elif path == "/v1/checkouts":
                    body["default_segment"] = min(segment, 3)  # the seed panel's 5/10/20
                else:
                    body["default_segment"] = 1  # an update keeps options the tester cannot see
            if isinstance(body.get("expires_at"), (int, float)):
                body["expires_at"] = int(time.time()) + 3600
    return case
