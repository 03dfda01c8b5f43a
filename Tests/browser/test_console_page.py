"""Browser tests of the operator console (GET /console) in a real headless Chromium, against a
real `paypanel serve --test-root --port 0` (test_demo_page.py's Server and browser set-up).

    python Tests/browser/test_console_page.py --binary .build/debug/paypanel [--screenshots docs]
"""
import argparse
import os
import sys
import time
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_demo_page import OPTIONS, BrowserTestCase


class ConsolePageTests(BrowserTestCase):
    # --- helpers ---------------------------------------------------------------------

    def manual_intent(self, amount=1000):
        """An intent authorized and waiting in requires_capture."""
        intent = self.server.api("POST", "/v1/payment_intents", {"amount": amount, "currency": "USD", "capture_method": "manual"})
        self.server.api("POST", "/v1/payment_intents/%s/confirm" % intent["id"], {"payment_method": {
            "type": "card", "number": "4242424242424242", "exp_month": 12, "exp_year": 2030}})
        return intent["id"]

    def sign_in(self):
        self.driver.get(self.server.url + "/console")
        self.visible("#key").send_keys(self.server.key)
        self.driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
        self.visible("#intents")

    def open_intent(self, intent_id, status="requires_capture"):
        Select(self.driver.find_element(By.ID, "status-filter")).select_by_value(status)
        self.wait(lambda d: any(b.text == intent_id for b in d.find_elements(By.CSS_SELECTOR, "#intent-rows button")))
        next(b for b in self.driver.find_elements(By.CSS_SELECTOR, "#intent-rows button") if b.text == intent_id).click()
        self.wait(lambda d: d.find_element(By.ID, "detail-title").text == "Intent " + intent_id)

    def back_to_list(self):
        self.driver.find_element(By.ID, "back").click()
        self.visible("#intents")

    def field(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def screenshot(self, name, css):
        if OPTIONS["screenshots"]:
            element = self.driver.find_element(By.CSS_SELECTOR, css)
            self.driver.execute_script("arguments[0].scrollIntoView()", element)
            element.screenshot(os.path.join(OPTIONS["screenshots"], name))

    # --- tests -----------------------------------------------------------------------

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
    parser.add_argument("--screenshots", help="save the intent view's PNGs here (docs/)")
    arguments, rest = parser.parse_known_args()
    OPTIONS["binary"] = os.path.abspath(arguments.binary)
    OPTIONS["screenshots"] = arguments.screenshots and os.path.abspath(arguments.screenshots)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
