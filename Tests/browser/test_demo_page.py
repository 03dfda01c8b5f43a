"""Browser tests of the device simulator page (GET /demo) and the operator console (GET /console)
in a real headless Chromium.

Starts a real `paypanel serve --test-root --port 0` in a temporary directory, drives the page
with Selenium and checks the outcome through the API with the server's secret key. Every wait
only bounds a hang (generous, for a loaded 2-core machine); nothing asserts on durations.

    python Tests/browser/test_demo_page.py --binary .build/debug/paypanel [--screenshots docs]

Needs the `selenium` package and Debian's `chromium` + `chromium-driver` (see .ci/run).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

OPTIONS = {"binary": ".build/debug/paypanel", "screenshots": None}
WAIT = 60  # seconds; bounds a hang only


class Server:
    """One `paypanel serve --test-root --port 0`, stopped by its pid."""

    def __init__(self, binary, extra=()):
        self.directory = tempfile.mkdtemp(prefix="paypanel-browser-")
        self.stdout = open(os.path.join(self.directory, "serve.out"), "w+")
        self.stderr = open(os.path.join(self.directory, "serve.err"), "w+")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", "--test-root", "--worker-interval", "200",
             "--db", os.path.join(self.directory, "payments.sqlite"),
             "--processor-db", os.path.join(self.directory, "processor.sqlite"), *extra],
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
            self.stop()
            raise RuntimeError("paypanel serve printed no listening line")
        self.stderr.seek(0)
        self.key = re.search(r"sk_[A-Za-z0-9]+", self.stderr.read()).group(0)

    def api(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": "Bearer " + self.key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return json.load(response)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stdout.close()
        self.stderr.close()
        shutil.rmtree(self.directory, ignore_errors=True)


class DemoPageTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Loopback webhook URLs are allowed so the console test can record a delivery attempt.
        cls.server = Server(OPTIONS["binary"], extra=["--allow-private-webhooks"])
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,1000",
                         "--disable-gpu", "--no-first-run"):
            options.add_argument(argument)
        cls.profile = tempfile.mkdtemp(prefix="paypanel-chromium-")
        options.add_argument("--user-data-dir=" + cls.profile)
        service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
        try:
            cls.driver = webdriver.Chrome(options=options, service=service)
        except Exception:
            cls.server.stop()
            shutil.rmtree(cls.profile, ignore_errors=True)
            raise
        cls.driver.set_script_timeout(WAIT)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        shutil.rmtree(cls.profile, ignore_errors=True)

    # --- helpers ---------------------------------------------------------------------

    def wait(self, condition):
        return WebDriverWait(self.driver, WAIT).until(condition)

    def visible(self, css):
        return self.wait(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def open_panel(self, server=None):
        self.driver.get((server or self.server).url + "/demo")
        self.visible("#banner").click()
        self.visible("#panel")
        return self.driver.find_element(By.ID, "checkout-id").text

    def choose_card(self, card_id):
        self.visible('label[data-card="%s"]' % card_id).click()

    def confirm(self):
        self.wait(EC.element_to_be_clickable((By.ID, "confirm"))).click()

    def result_title(self):
        return self.visible("#result h2").text

    def intent_id(self):
        detail = self.driver.find_element(By.ID, "result-detail").text
        return re.search(r"pi_[A-Za-z0-9]+", detail).group(0)

    def screenshot(self, name):
        if OPTIONS["screenshots"]:
            self.driver.find_element(By.CSS_SELECTOR, ".phone").screenshot(os.path.join(OPTIONS["screenshots"], name))

    # --- tests -----------------------------------------------------------------------

    def test_happy_path_select_20_and_pay_with_apple_pay(self):
        checkout = self.server.api("GET", "/v1/checkouts/" + self.open_panel())
        checked = self.driver.find_element(By.CSS_SELECTOR, "#segments input:checked")
        default = checkout["amount_options"][checkout["default_segment"] - 1]
        self.assertEqual(checked.get_attribute("value"), str(default), "the default segment (1-based) is selected")
        self.driver.find_element(By.CSS_SELECTOR, 'label[data-amount="2000"]').click()
        self.assertEqual(self.driver.find_element(By.ID, "total").text, "$20.00")
        self.screenshot("demo-panel.png")
        self.driver.find_element(By.ID, "buy").click()
        self.visible("#sheet")
        self.assertIn("Pay ", self.driver.find_element(By.ID, "sheet-pay-label").text)
        self.assertEqual(self.driver.find_element(By.ID, "sheet-total").text, "$20.00")
        cards = [label.get_attribute("data-card") for label in self.driver.find_elements(By.CSS_SELECTOR, "#cards label")]
        self.assertIn("card_4242", cards)
        self.assertNotIn("card_1117", cards, "Discover is not in the seed request's networks")
        self.screenshot("demo-sheet.png")
        self.confirm()
        self.assertEqual(self.result_title(), "Done")
        intent = self.server.api("GET", "/v1/payment_intents/" + self.intent_id())
        self.assertEqual(intent["status"], "succeeded")
        self.assertEqual(intent["amount"], 2000)

    def test_a_decline_then_another_card(self):
        self.open_panel()
        self.driver.find_element(By.ID, "buy").click()
        self.visible("#sheet")
        self.choose_card("card_9995")
        self.confirm()
        self.wait(lambda d: "insufficient" in d.find_element(By.ID, "sheet-message").text.lower())
        self.assertTrue(self.driver.find_element(By.ID, "sheet").is_displayed(), "the sheet stays open to pick another card")
        self.choose_card("card_4444")
        self.confirm()
        self.assertEqual(self.result_title(), "Done")
        self.assertEqual(self.server.api("GET", "/v1/payment_intents/" + self.intent_id())["status"], "succeeded")

    def pay_into_three_d_secure(self):
        checkout = self.open_panel()
        self.driver.find_element(By.ID, "buy").click()
        self.visible("#sheet")
        self.choose_card("card_3184")
        self.confirm()
        self.visible("#challenge")
        self.assertFalse(self.driver.find_element(By.ID, "sheet").is_displayed(), "the bank's step replaces the sheet")
        intent = self.server.api("GET", "/v1/checkouts/" + checkout)["payment_intent"]
        self.assertEqual(self.server.api("GET", "/v1/payment_intents/" + intent)["status"], "requires_action")
        return intent

    def test_three_d_secure_pass_completes_the_payment(self):
        intent = self.pay_into_three_d_secure()
        self.wait(EC.element_to_be_clickable((By.ID, "challenge-pass"))).click()
        self.assertEqual(self.result_title(), "Done")
        self.assertEqual(self.intent_id(), intent)
        self.assertEqual(self.server.api("GET", "/v1/payment_intents/" + intent)["status"], "succeeded")

    def test_three_d_secure_fail_is_declined_then_another_card(self):
        intent = self.pay_into_three_d_secure()
        self.wait(EC.element_to_be_clickable((By.ID, "challenge-fail"))).click()
        self.wait(lambda d: "declined after 3-d secure" in d.find_element(By.ID, "sheet-message").text.lower())
        self.assertTrue(self.driver.find_element(By.ID, "sheet").is_displayed(), "back on the sheet to pick another card")
        self.assertEqual(self.server.api("GET", "/v1/payment_intents/" + intent)["status"], "requires_payment_method")
        self.choose_card("card_4242")
        self.confirm()
        self.assertEqual(self.result_title(), "Done")
        self.assertEqual(self.server.api("GET", "/v1/payment_intents/" + self.intent_id())["status"], "succeeded")

    def test_a_long_press_on_the_banner_expands_it(self):
        self.driver.get(self.server.url + "/demo")
        banner = self.visible("#banner")
        ActionChains(self.driver).click_and_hold(banner).perform()
        try:
            # Still held: the panel opens from the long-press, not from a click.
            self.visible("#panel")
            self.assertIn("Long-press", self.driver.find_element(By.ID, "status").text)
        finally:
            ActionChains(self.driver).release().perform()
        self.assertTrue(self.driver.find_element(By.ID, "panel").is_displayed())

    def test_the_sheet_deadline_ends_in_payment_not_completed(self):
        # A server on a virtual clock (--now): the bank's 30 s answer and the sheet's 25 s
        # deadline pass in virtual time, so the test does not wait them out.
        server = Server(OPTIONS["binary"], extra=["--now", "2026-12-01T10:00:00Z"])
        try:
            self.open_panel(server)
            self.driver.find_element(By.ID, "buy").click()
            self.visible("#sheet")
            self.choose_card("card_5556")
            self.confirm()
            self.assertEqual(self.result_title(), "Payment not completed")
            intent = self.intent_id()
            self.assertNotEqual(server.api("GET", "/v1/payment_intents/" + intent)["status"], "succeeded")
            self.driver.find_element(By.ID, "dismiss-result").click()
            self.visible("#again")
        finally:
            server.stop()

    def test_an_update_arrives_while_the_panel_is_open_and_keeps_the_selection(self):
        checkout = self.open_panel()
        self.driver.find_element(By.CSS_SELECTOR, 'label[data-amount="2000"]').click()
        self.server.api("POST", "/v1/checkouts/" + checkout, {"amount_options": [500, 1000, 2000, 5000], "product_label": "Bigger box"})
        self.wait(lambda d: d.find_element(By.ID, "panel-title").text == "Bigger box")
        values = [i.get_attribute("value") for i in self.driver.find_elements(By.CSS_SELECTOR, "#segments input")]
        self.assertEqual(values, ["500", "1000", "2000", "5000"])
        checked = self.driver.find_element(By.CSS_SELECTOR, "#segments input:checked")
        self.assertEqual(checked.get_attribute("value"), "2000", "the selection survives the update")

    def test_pay_in_app_with_the_card_form(self):
        self.open_panel()
        self.driver.find_element(By.ID, "pay-in-app").click()
        self.visible("#card-form-dialog")
        self.driver.find_element(By.ID, "card-number").send_keys("4242 4242 4242 4242")
        self.driver.find_element(By.ID, "card-month").send_keys("12")
        self.driver.find_element(By.ID, "card-year").send_keys("2030")
        self.driver.find_element(By.ID, "card-form-submit").click()
        self.assertEqual(self.result_title(), "Done")

    def test_console_captures_in_part_and_refunds_in_part(self):
        # Nothing listens on port 1: the delivery attempts fail, and each is recorded.
        endpoint = self.server.api("POST", "/v1/webhook_endpoints", {"url": "http://127.0.0.1:1/hooks"})
        intent = self.server.api("POST", "/v1/payment_intents", {"amount": 1000, "currency": "USD", "capture_method": "manual"})
        self.server.api("POST", "/v1/payment_intents/%s/confirm" % intent["id"], {"payment_method": {
            "type": "card", "number": "4242424242424242", "exp_month": 12, "exp_year": 2030}})
        self.driver.get(self.server.url + "/console")
        self.visible("#key").send_keys(self.server.key)
        self.driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
        self.visible("#intents")
        self.assertNotIn(self.server.key, self.driver.current_url, "the key is never in the URL")
        self.assertEqual(self.driver.execute_script("return document.cookie + JSON.stringify(localStorage) + JSON.stringify(sessionStorage)"), "{}{}")
        Select(self.driver.find_element(By.ID, "status-filter")).select_by_visible_text("requires_capture")
        self.wait(lambda d: any(b.text == intent["id"] for b in d.find_elements(By.CSS_SELECTOR, "#intent-rows button")))
        next(b for b in self.driver.find_elements(By.CSS_SELECTOR, "#intent-rows button") if b.text == intent["id"]).click()
        self.visible("#detail")
        self.driver.find_element(By.ID, "capture-amount").send_keys("600")
        self.driver.find_element(By.ID, "capture").click()
        self.wait(lambda d: "succeeded" in d.find_element(By.ID, "summary").text)
        # A refund above what is refundable: the API's own error, shown as it is.
        self.driver.find_element(By.ID, "refund-amount").send_keys("5000")
        self.driver.find_element(By.ID, "refund").click()
        self.wait(lambda d: "HTTP 4" in d.find_element(By.ID, "action-message").text)
        self.driver.find_element(By.ID, "refund-amount").clear()
        self.driver.find_element(By.ID, "refund-amount").send_keys("200")
        self.driver.find_element(By.ID, "refund").click()
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#refund-rows tr")) == 1)
        after = self.server.api("GET", "/v1/payment_intents/" + intent["id"])
        self.assertEqual((after["amount_captured"], after["amount_refunded"]), (600, 200))
        self.assertTrue(self.driver.find_elements(By.CSS_SELECTOR, "#attempt-rows tr"), "the attempt is listed")

        # Its place on the state diagram: succeeded now, requires_capture on the way.
        current = self.driver.find_element(By.CSS_SELECTOR, '#state-diagram g[aria-current="true"]')
        self.assertEqual(current.get_attribute("data-state"), "succeeded")
        passed = self.driver.find_element(By.CSS_SELECTOR, '#state-diagram g[data-state="requires_capture"]')
        self.assertIn("visited", passed.get_attribute("class"))
        # The processor's ledger beside PayPanel's rows: authorize, capture, refund.
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ledger-rows tr")) == 3)
        ledger = self.driver.find_element(By.ID, "ledger-rows").text
        for word in ("authorize", "capture", "refund", "4242"):
            self.assertIn(word, ledger)
        self.assertNotIn("4242424242424242", self.driver.page_source)
        # A webhook delivery with its failed attempt (reload until the relay has tried).
        def delivery_attempted(driver):
            rows = driver.find_element(By.ID, "delivery-rows").text
            if endpoint["id"] in rows and "no answer" in rows:
                return True
            driver.find_element(By.ID, "reload").click()
            time.sleep(0.3)
            return False
        self.wait(delivery_attempted)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=OPTIONS["binary"])
    parser.add_argument("--screenshots", help="save the panel's and the sheet's PNG here (docs/)")
    arguments, rest = parser.parse_known_args()
    OPTIONS["binary"] = os.path.abspath(arguments.binary)
    OPTIONS["screenshots"] = arguments.screenshots and os.path.abspath(arguments.screenshots)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
