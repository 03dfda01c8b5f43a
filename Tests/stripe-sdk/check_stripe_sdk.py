"""The real Stripe SDK for Python (the `stripe` package from PyPI) against `paypanel processor serve`.

Starts `paypanel processor serve --port 0` in a temporary directory, points the SDK at it with
`stripe.api_base`, and drives what another project's integration tests would: PaymentIntent
create + confirm with `pm_card_visa`, capture, a decline (`CardError` with `decline_code`), an
idempotent replay with the same `idempotency_key` (and a mismatch), list with pagination,
search by metadata and by the query language (OR, negation, an amount range; a malformed query
raises `InvalidRequestError` on `query`), Refund create, 404, 3-D Secure and account isolation. Then every card of the
mock's test card table (read from the server's `GET /_mock/triggers`, `test_cards`: the table the
docs are generated from), by each `pm_card_…` id and by number, on session and with
`off_session=True`: declines must raise `CardError` with Stripe's code, decline_code and message,
3-D Secure must answer `requires_action`. Where the SDK and the mock disagree, the mock is wrong. The server is stopped by its pid; the directory is removed.
docs/mock-processor.md shows the same calls as its Python example.

    python Tests/stripe-sdk/check_stripe_sdk.py --binary .build/debug/paypanel

Loopback only; every wait bounds a hang (generous, for a loaded 2-core machine).
"""
import argparse
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import stripe

OPTIONS = {"binary": ".build/debug/paypanel"}
WAIT = 60  # seconds; bounds a hang only


class ProcessorServer:
    """One `paypanel processor serve --port 0`, stopped by its pid."""

    def __init__(self, binary):
        self.directory = tempfile.mkdtemp(prefix="paypanel-stripe-sdk-")
        self.stdout = open(os.path.join(self.directory, "processor.out"), "w+")
        self.stderr = open(os.path.join(self.directory, "processor.err"), "w+")
        self.process = subprocess.Popen(
            [binary, "processor", "serve", "--port", "0", "--now", "2026-12-01T10:00:00Z",
             "--processor-db", os.path.join(self.directory, "processor.sqlite")],
            stdout=self.stdout, stderr=self.stderr, stdin=subprocess.DEVNULL, cwd=self.directory)
        deadline = time.monotonic() + WAIT
        self.url = None
        while time.monotonic() < deadline and self.process.poll() is None:
            self.stdout.seek(0)
            match = re.search(r"listening on (http://\S+)", self.stdout.read())
            if match:
                self.url = match.group(1)
                break
            time.sleep(0.05)
        if not self.url:
            self.stderr.seek(0)
            error = self.stderr.read()
            self.stop()
            raise RuntimeError("paypanel processor serve printed no listening line: " + error[-1500:])

    def stop(self):
        """SIGTERM, then its exit status (SIGKILL after WAIT seconds)."""
        status = self.process.poll()
        if status is None:
            self.process.terminate()
            try:
                status = self.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                status = -1
        self.stdout.close()
        self.stderr.close()
        shutil.rmtree(self.directory, ignore_errors=True)
        return status


class StripeSDKAgainstTheMock(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = ProcessorServer(OPTIONS["binary"])
        stripe.api_base = cls.server.url
        stripe.api_key = "sk_test_stripe_sdk_suite"  # any sk_test_ key: this suite's own account
        stripe.max_network_retries = 0

    @classmethod
    def tearDownClass(cls):
        status = cls.server.stop()
        if status != 0:
            raise AssertionError("paypanel processor serve exited with %s on SIGTERM" % status)

    def test_create_confirm_capture_and_refund(self):
        # docs/mock-processor.md's Python example, call for call.
        intent = stripe.PaymentIntent.create(
            amount=1500, currency="usd", confirm=True, capture_method="manual",
            payment_method="pm_card_visa", metadata={"order_id": "o-42"},
            idempotency_key="order-o-42",
        )
        self.assertEqual(intent.object, "payment_intent")
        self.assertEqual((intent.status, intent.currency, intent.amount), ("requires_capture", "usd", 1500))
        self.assertEqual(intent.amount_capturable, 1500)
        self.assertTrue(intent.latest_charge)
        self.assertEqual(intent.metadata["order_id"], "o-42")

        captured = stripe.PaymentIntent.capture(intent.id, amount_to_capture=1000)
        self.assertEqual((captured.status, captured.amount_received), ("succeeded", 1000))

        refund = stripe.Refund.create(payment_intent=intent.id, amount=400)
        self.assertEqual(refund.object, "refund")
        self.assertEqual((refund.status, refund.amount, refund.payment_intent), ("succeeded", 400, intent.id))
        self.assertEqual(stripe.Refund.retrieve(refund.id).amount, 400)
        self.assertEqual([r.id for r in stripe.Refund.list(payment_intent=intent.id).data], [refund.id])
        self.assertEqual([i.id for i in stripe.PaymentIntent.search(query="metadata['order_id']:'o-42'").data], [intent.id])

    def test_create_then_confirm_separately(self):
        intent = stripe.PaymentIntent.create(amount=900, currency="eur")
        self.assertEqual(intent.status, "requires_payment_method")
        confirmed = stripe.PaymentIntent.confirm(intent.id, payment_method="pm_card_mastercard")
        self.assertEqual((confirmed.status, confirmed.amount_received), ("succeeded", 900))
        canceled = stripe.PaymentIntent.cancel(
            stripe.PaymentIntent.create(amount=300, currency="usd", confirm=True, capture_method="manual",
                                        payment_method="pm_card_visa").id)
        self.assertEqual(canceled.status, "canceled")

    def test_declines_raise_card_error_with_the_decline_code(self):
        for method, decline in [("pm_card_chargeDeclined", "generic_decline"),
                                ("pm_card_chargeDeclinedInsufficientFunds", "insufficient_funds")]:
            with self.assertRaises(stripe.error.CardError) as raised:
                stripe.PaymentIntent.create(amount=1500, currency="usd", confirm=True, payment_method=method)
            error = raised.exception
            self.assertEqual(error.http_status, 402)
            self.assertEqual(error.code, "card_declined")
            self.assertEqual(error.error.decline_code, decline)
            self.assertTrue(error.user_message)
            # The declined intent comes with the error, as at Stripe.
            self.assertEqual(error.error.payment_intent.status, "requires_payment_method")

    def test_the_same_idempotency_key_replays_and_a_mismatch_is_refused(self):
        first = stripe.PaymentIntent.create(amount=700, currency="usd", confirm=True, payment_method="pm_card_visa",
                                            idempotency_key="sdk-key-1")
        again = stripe.PaymentIntent.create(amount=700, currency="usd", confirm=True, payment_method="pm_card_visa",
                                            idempotency_key="sdk-key-1")
        self.assertEqual(again.id, first.id)
        self.assertEqual(again.last_response.headers.get("Idempotent-Replayed"), "true")
        self.assertTrue(again.last_response.request_id)
        with self.assertRaises(stripe.error.IdempotencyError) as raised:
            stripe.PaymentIntent.create(amount=701, currency="usd", confirm=True, payment_method="pm_card_visa",
                                        idempotency_key="sdk-key-1")
        self.assertEqual(raised.exception.http_status, 400)

    def test_list_paginates(self):
        created = {stripe.PaymentIntent.create(amount=100 + n, currency="usd", metadata={"batch": "paging"}).id
                   for n in range(5)}
        page = stripe.PaymentIntent.list(limit=2)
        self.assertEqual(len(page.data), 2)
        self.assertTrue(page.has_more)
        following = stripe.PaymentIntent.list(limit=2, starting_after=page.data[-1].id)
        self.assertFalse({i.id for i in page.data} & {i.id for i in following.data})
        # Bounded: a mock whose pages never end must fail the check, not hang it.
        seen = [intent.id for intent in itertools.islice(stripe.PaymentIntent.list(limit=2).auto_paging_iter(), 1000)]
        self.assertLess(len(seen), 1000, "list pages never end")
        self.assertEqual(len(seen), len(set(seen)))
        self.assertTrue(created <= set(seen))

    def test_search_by_metadata(self):
        intent = stripe.PaymentIntent.create(amount=1200, currency="usd", confirm=True, capture_method="manual",
                                             payment_method="pm_card_visa", metadata={"attempt_id": "att_sdk_1"})
        found = stripe.PaymentIntent.search(query="metadata['attempt_id']:'att_sdk_1'")
        self.assertEqual(found.object, "search_result")
        self.assertEqual([i.id for i in found.data], [intent.id])
        self.assertEqual(stripe.PaymentIntent.search(query="metadata['attempt_id']:'att_none'").data, [])

    def test_search_query_language(self):
        # An account of its own: an OR query cannot be narrowed to this test's intents.
        key = "sk_test_stripe_sdk_search_grammar"
        small = stripe.PaymentIntent.create(amount=700, currency="usd", metadata={"tier": "gold"}, api_key=key)
        middle = stripe.PaymentIntent.create(amount=1700, currency="eur", confirm=True, capture_method="manual",
                                             payment_method="pm_card_visa", api_key=key)
        stripe.PaymentIntent.create(amount=2700, currency="usd", metadata={"tier": "silver"}, api_key=key)

        def found(query):
            return [i.id for i in stripe.PaymentIntent.search(query=query, api_key=key).data]

        self.assertEqual(found("amount>=1000 AND amount<2000"), [middle.id])
        self.assertEqual(found("currency:'eur' OR metadata['tier']:'GOLD'"), [middle.id, small.id])
        self.assertEqual(found("-currency:'usd'"), [middle.id])
        self.assertEqual(found("-metadata[\"tier\"]:null amount<2000"), [small.id])
        self.assertEqual(found("status:'requires_capture' OR -amount>1000"), [middle.id, small.id])
        # Stripe does not mix AND and OR: a 400 naming the character, never an empty result.
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.PaymentIntent.search(query="amount>1000 AND currency:'usd' OR status:'succeeded'", api_key=key)
        self.assertEqual((raised.exception.http_status, raised.exception.param), (400, "query"))
        self.assertIn("at character 31", raised.exception.user_message or str(raised.exception))

    def test_a_missing_intent_is_invalid_request_error_404(self):
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.PaymentIntent.retrieve("pi_missing")
        self.assertEqual((raised.exception.http_status, raised.exception.code), (404, "resource_missing"))

    def test_unknown_parameters_and_routes_are_invalid_request_errors(self):
        # A name the mock does not take, at the top or nested, is refused by name, as at Stripe.
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.PaymentIntent.create(amount=1000, currency="usd", colour="red")
        self.assertEqual((raised.exception.http_status, raised.exception.param), (400, "colour"))
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.PaymentIntent.create(amount=1000, currency="usd", payment_method_data={"type": "card", "card": {"colour": "red"}})
        self.assertEqual(raised.exception.param, "payment_method_data[card][colour]")
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.PaymentIntent.list(colour="red")
        self.assertEqual(raised.exception.param, "colour")
        # A route the mock does not serve: Stripe's 404 "Unrecognized request URL".
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.SetupIntent.create(usage="off_session")
        self.assertEqual(raised.exception.http_status, 404)
        self.assertIn("Unrecognized request URL (POST: /v1/setup_intents)", raised.exception.user_message or str(raised.exception))

    def test_three_d_secure_is_requires_action_completed_at_the_test_endpoint(self):
        intent = stripe.PaymentIntent.create(amount=800, currency="usd", confirm=True, capture_method="manual",
                                             payment_method="pm_card_authenticationRequired")
        self.assertEqual(intent.status, "requires_action")
        self.assertEqual(intent.next_action.type, "redirect_to_url")
        request = urllib.request.Request(intent.next_action.redirect_to_url.url, data=b"outcome=pass", method="POST",
                                         headers={"Authorization": "Bearer " + stripe.api_key})
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            self.assertEqual(response.status, 200)
        self.assertEqual(stripe.PaymentIntent.retrieve(intent.id).status, "requires_capture")

    def test_another_key_is_another_account(self):
        intent = stripe.PaymentIntent.create(amount=500, currency="usd")
        with self.assertRaises(stripe.error.InvalidRequestError):
            stripe.PaymentIntent.retrieve(intent.id, api_key="sk_test_someone_else")

    def test_the_stripe_client_interface_too(self):
        client = stripe.StripeClient("sk_test_stripe_sdk_client", base_addresses={"api": self.server.url},
                                     max_network_retries=0)
        intent = client.v1.payment_intents.create(params={"amount": 2000, "currency": "usd", "confirm": True,
                                                       "payment_method": "pm_card_visa"})
        self.assertEqual(intent.status, "succeeded")
        refund = client.v1.refunds.create(params={"payment_intent": intent.id})
        self.assertEqual((refund.status, refund.amount), ("succeeded", 2000))


    def test_instance_methods_and_search_paging(self):
        intent = stripe.PaymentIntent.create(amount=1100, currency="usd", confirm=True, capture_method="manual",
                                             payment_method="pm_card_amex", metadata={"batch": "instances"})
        self.assertEqual(intent.capture().status, "succeeded")
        stripe.PaymentIntent.create(amount=1101, currency="usd", metadata={"batch": "instances"})
        pages = stripe.PaymentIntent.search(query="metadata['batch']:'instances'", limit=1).auto_paging_iter()
        found = [i.id for i in itertools.islice(pages, 10)]  # bounded: a search that repeats its first page fails
        self.assertEqual(len(found), 2, "search pages: %s" % found)
        self.assertIn(intent.id, found)

    def test_refund_errors_are_invalid_request_errors(self):
        intent = stripe.PaymentIntent.create(amount=500, currency="usd", confirm=True, payment_method="pm_card_visa")
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.Refund.create(payment_intent=intent.id, amount=501)
        self.assertEqual(raised.exception.http_status, 400)
        self.assertEqual(raised.exception.code, "amount_too_large")
        pending = stripe.PaymentIntent.create(amount=500, currency="usd")
        with self.assertRaises(stripe.error.InvalidRequestError):
            stripe.Refund.create(payment_intent=pending.id)

    def test_network_faults_reach_the_sdk_as_its_error_types(self):
        for holder, error_type, status in [("HTTP_429", stripe.error.RateLimitError, 429),
                                           ("HTTP_503", stripe.error.APIError, 503)]:
            with self.assertRaises(error_type) as raised:
                stripe.PaymentIntent.create(amount=500, currency="usd", confirm=True, payment_method="pm_card_visa",
                                            payment_method_data={"billing_details": {"name": holder}})
            self.assertEqual(raised.exception.http_status, status)
        with self.assertRaises(stripe.error.APIConnectionError):
            stripe.PaymentIntent.create(amount=500, currency="usd", confirm=True, payment_method="pm_card_visa",
                                        payment_method_data={"billing_details": {"name": "DROP_AFTER"}})

    # -- Stripe's test cards, every one, as the server's own table says -----------------------

    def card_table(self):
        """The server's test card table, as GET /_mock/triggers gives it."""
        request = urllib.request.Request(self.server.url + "/_mock/triggers",
                                         headers={"Authorization": "Bearer " + stripe.api_key})
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            cards = json.load(response)["test_cards"]
        self.assertGreater(len(cards), 40, "the test card table is missing or shrank")
        return cards

    def confirm_as_the_table_says(self, card, way, off_session):
        """Confirms one card (by id or by number) and checks the SDK sees what the table says."""
        outcome = card["off_session" if off_session else "confirm"]
        params = {"amount": 1000, "currency": "usd", "confirm": True}
        if way.startswith("pm_"):
            params["payment_method"] = way
        else:
            params["payment_method_data"] = {"type": "card", "card": {"number": way, "exp_month": 12, "exp_year": 2034}}
        if off_session:
            params["off_session"] = True
        if outcome["status"] == "requires_payment_method":
            with self.assertRaises(stripe.error.CardError) as raised:
                stripe.PaymentIntent.create(**params)
            self.assert_card_error(raised.exception, outcome["error"])
            self.assertEqual(raised.exception.error.payment_intent.status, "requires_payment_method")
            return
        intent = stripe.PaymentIntent.create(**params)
        self.assertEqual(intent.status, outcome["status"])
        if outcome["status"] != "requires_action":
            return
        self.assertEqual(intent.next_action.type, "redirect_to_url")
        after = outcome["after_authentication"]
        request = urllib.request.Request(intent.next_action.redirect_to_url.url, data=b"outcome=pass", method="POST",
                                         headers={"Authorization": "Bearer " + stripe.api_key})
        try:
            with urllib.request.urlopen(request, timeout=WAIT) as response:
                self.assertEqual(response.status, 200)
        except urllib.error.HTTPError as error:
            self.assertEqual(error.code, 402, "passing the challenge answered %s" % error.code)
        passed = stripe.PaymentIntent.retrieve(intent.id)
        self.assertEqual(passed.status, after["status"])
        if after["error"]:
            self.assertEqual(passed.last_payment_error.code, after["error"]["code"])
            self.assertEqual(passed.last_payment_error.decline_code, after["error"]["decline_code"])

    def assert_card_error(self, error, expected):
        self.assertEqual(error.http_status, 402)
        self.assertEqual(error.code, expected["code"])
        self.assertEqual(error.error.decline_code, expected["decline_code"])
        self.assertEqual(error.user_message, expected["message"])
        self.assertEqual(error.param, expected["param"])

    def ways(self, card):
        """Each pm_card id, then the number; labelled without the number (no card numbers in logs)."""
        return [(way, way) for way in card["payment_methods"]] + [(card["number"], "number ending " + card["number"][-4:])]

    def test_every_test_card_confirms_as_at_stripe(self):
        confirmed = 0
        for card in self.card_table():
            for way, label in self.ways(card):
                with self.subTest(card=label):
                    self.confirm_as_the_table_says(card, way, off_session=False)
                    confirmed += 1
        print("\n  %d test card ids and numbers confirmed on session" % confirmed, file=sys.stderr, flush=True)

    def test_every_test_card_confirms_off_session_as_at_stripe(self):
        confirmed = 0
        for card in self.card_table():
            for way, label in self.ways(card):
                with self.subTest(card=label, off_session=True):
                    self.confirm_as_the_table_says(card, way, off_session=True)
                    confirmed += 1
        print("\n  %d test card ids and numbers confirmed off session" % confirmed, file=sys.stderr, flush=True)

    def test_the_issues_cards_by_name(self):
        # Written out, not read from the table: what Stripe's testing page says of these.
        for method, code, decline in [("pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc", "incorrect_cvc"),
                                      ("pm_card_visa_chargeDeclinedVelocityLimitExceeded", "card_declined", "card_velocity_exceeded"),
                                      ("pm_card_radarBlock", "card_declined", "fraudulent")]:
            with self.subTest(method=method), self.assertRaises(stripe.error.CardError) as raised:
                stripe.PaymentIntent.create(amount=1000, currency="usd", confirm=True, payment_method=method)
            self.assertEqual((raised.exception.code, raised.exception.error.decline_code), (code, decline))
        intent = stripe.PaymentIntent.create(amount=1000, currency="usd", confirm=True,
                                             payment_method_data={"type": "card", "card": {
                                                 "number": "4000000000003220", "exp_month": 12, "exp_year": 2034}})
        self.assertEqual(intent.status, "requires_action")
        with self.assertRaises(stripe.error.CardError) as raised:
            stripe.PaymentIntent.create(amount=1000, currency="usd", confirm=True, off_session=True,
                                        payment_method="pm_card_authenticationRequired", setup_future_usage="off_session")
        self.assertEqual((raised.exception.code, raised.exception.error.decline_code),
                         ("authentication_required", "authentication_required"))
        self.assertEqual(raised.exception.error.payment_intent.setup_future_usage, "off_session")
        self.assertEqual(raised.exception.error.payment_intent.last_payment_error.code, "authentication_required")

    def test_updates_follow_stripes_rules_on_what_may_change_when(self):
        intent = stripe.PaymentIntent.create(amount=1000, currency="usd", metadata={"order": "o-1", "drop": "d"})
        updated = stripe.PaymentIntent.modify(intent.id, amount=2500, currency="eur", description="two tickets",
                                              receipt_email="payer@example.com", metadata={"order": "o-2", "drop": ""})
        self.assertEqual((updated.amount, updated.currency, updated.description, updated.receipt_email),
                         (2500, "eur", "two tickets", "payer@example.com"))
        self.assertEqual(updated.metadata.to_dict(), {"order": "o-2"})
        paid = stripe.PaymentIntent.confirm(intent.id, payment_method="pm_card_visa")
        self.assertEqual(paid.status, "succeeded")
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.PaymentIntent.modify(intent.id, amount=3000)
        self.assertEqual((raised.exception.code, raised.exception.param), ("payment_intent_unexpected_state", "amount"))
        self.assertEqual(stripe.PaymentIntent.modify(intent.id, metadata={"shipped": "yes"}).metadata["shipped"], "yes")
        refund = stripe.Refund.create(payment_intent=intent.id, amount=500)
        self.assertEqual(stripe.Refund.modify(refund.id, metadata={"ticket": "t-9"}).metadata["ticket"], "t-9")

    def test_amounts_and_integers_carry_stripes_codes_and_doc_urls(self):
        for amount, currency, code in [(49, "usd", "amount_too_small"), (29, "gbp", "amount_too_small"),
                                       (100000000, "usd", "amount_too_large"), ("12.5", "usd", "parameter_invalid_integer")]:
            with self.subTest(amount=amount, currency=currency), self.assertRaises(stripe.error.InvalidRequestError) as raised:
                stripe.PaymentIntent.create(amount=amount, currency=currency)
            self.assertEqual((raised.exception.code, raised.exception.param), (code, "amount"))
            self.assertEqual(raised.exception.error.doc_url, "https://stripe.com/docs/error-codes/" + code.replace("_", "-"))
        self.assertEqual(stripe.PaymentIntent.create(amount=50, currency="usd").amount, 50)

    def test_the_api_version_is_the_sdks_echoed_and_decides_defaults(self):
        # The SDK sends its pinned version on every call; the mock answers in it.
        intent = stripe.PaymentIntent.create(amount=700, currency="usd")
        self.assertEqual(intent.last_response.headers.get("Stripe-Version"), stripe.api_version)
        self.assertEqual(intent.capture_method, "automatic_async")
        older = stripe.PaymentIntent.create(amount=700, currency="usd", stripe_version="2023-10-16")
        self.assertEqual((older.capture_method, older.last_response.headers.get("Stripe-Version")), ("automatic", "2023-10-16"))
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.PaymentIntent.create(amount=700, currency="usd", stripe_version="2024-13-01")
        self.assertIn("Invalid Stripe API version", str(raised.exception))

    def test_charges_payment_methods_customers_and_expand(self):
        customer = stripe.Customer.create(email="sdk@example.com", name="SDK", metadata={"tier": "gold"})
        self.assertTrue(customer.id.startswith("cus_"))
        method = stripe.PaymentMethod.create(type="card", card={"token": "tok_visa"})
        self.assertEqual((method.card.brand, method.card.last4, method.customer), ("visa", "4242", None))
        self.assertEqual(stripe.PaymentMethod.attach(method.id, customer=customer.id).customer, customer.id)
        self.assertEqual([m.id for m in stripe.PaymentMethod.list(customer=customer.id).data], [method.id])
        intent = stripe.PaymentIntent.create(amount=1500, currency="usd", customer=customer.id, payment_method=method.id,
                                             confirm=True, expand=["latest_charge", "customer"])
        # Expanded objects are the SDK's own types, as against Stripe.
        self.assertIsInstance(intent.latest_charge, stripe.Charge)
        self.assertEqual((intent.latest_charge.amount_captured, intent.customer.email), (1500, "sdk@example.com"))
        charge = stripe.Charge.retrieve(intent.latest_charge.id)
        self.assertEqual((charge.payment_intent, charge.payment_method, charge.paid, charge.refunded), (intent.id, method.id, True, False))
        self.assertEqual([c.id for c in stripe.Charge.list(payment_intent=intent.id).data], [charge.id])
        stripe.Refund.create(payment_intent=intent.id)
        self.assertTrue(stripe.Charge.retrieve(charge.id).refunded)
        # A test id makes a new payment method, never echoed back as the intent's.
        plain = stripe.PaymentIntent.create(amount=900, currency="usd", payment_method="pm_card_visa", confirm=True)
        self.assertTrue(plain.payment_method.startswith("pm_") and plain.payment_method != "pm_card_visa")
        self.assertEqual(stripe.PaymentMethod.retrieve(plain.payment_method).card.last4, "4242")
        listed = stripe.PaymentIntent.list(limit=2, expand=["data.latest_charge"])
        self.assertTrue(all(isinstance(i.latest_charge, stripe.Charge) for i in listed.data))
        with self.assertRaises(stripe.error.InvalidRequestError) as raised:
            stripe.PaymentIntent.retrieve(intent.id, expand=["review"])
        self.assertEqual(raised.exception.param, "expand")
        updated = stripe.Customer.modify(customer.id, name="SDK 2", invoice_settings={"default_payment_method": method.id})
        self.assertEqual((updated.name, updated.invoice_settings.default_payment_method), ("SDK 2", method.id))
        self.assertEqual([c.id for c in stripe.Customer.list(email="sdk@example.com").data], [customer.id])
        self.assertEqual(stripe.PaymentMethod.detach(method.id).customer, None)
        self.assertTrue(stripe.Customer.delete(customer.id).deleted)
        self.assertTrue(stripe.Customer.retrieve(customer.id).deleted)
        found = stripe.Charge.search(query="refunded:'true' AND payment_method_details.card.last4:'4242' AND customer:'%s'" % customer.id)
        self.assertEqual([c.id for c in found.data], [charge.id])
        # A declined attempt has its charge too, as at Stripe.
        with self.assertRaises(stripe.error.CardError) as raised:
            stripe.PaymentIntent.create(amount=1000, currency="usd", confirm=True, payment_method="pm_card_chargeDeclined")
        failed = stripe.Charge.retrieve(raised.exception.error.payment_intent.latest_charge)
        self.assertEqual((failed.status, failed.failure_code, failed.outcome.type), ("failed", "card_declined", "issuer_declined"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=OPTIONS["binary"], help="the paypanel binary (default: %(default)s)")
    arguments, rest = parser.parse_known_args()
    OPTIONS["binary"] = os.path.abspath(arguments.binary)
    print("stripe-python %s against %s" % (stripe.VERSION, OPTIONS["binary"]), flush=True)
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    sys.exit(0 if program.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
