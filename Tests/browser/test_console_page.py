"""Browser tests of the operator console (GET /console) in a real headless Chromium, against a
real `paypanel serve --test-root --port 0` (test_demo_page.py's Server and browser set-up).

    python Tests/browser/test_console_page.py --binary .build/debug/paypanel [--screenshots docs]
"""
import argparse
import json
import os
import sys
import time
import unittest
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_demo_page import OPTIONS, BrowserTestCase


# The geometry of the rendered state diagram, computed in the page from its SVG: each box's
# rectangle and each edge's polyline (its path's M/L points, or a line's ends). A box is shrunk
# by half a pixel, so an edge may start and end on a border but not pass through any box.
DIAGRAM_GEOMETRY = """
const svg = document.querySelector('#state-diagram svg');
const boxes = Array.from(svg.querySelectorAll('g[data-state]'), (g) => {
  const r = g.querySelector('rect');
  return { name: g.getAttribute('data-state'), x: +r.getAttribute('x'), y: +r.getAttribute('y'),
           w: +r.getAttribute('width'), h: +r.getAttribute('height') };
});
const edges = Array.from(svg.querySelectorAll('.state-edge'), (e) => {
  let points;
  if (e.tagName === 'line') {
    points = [[+e.getAttribute('x1'), +e.getAttribute('y1')], [+e.getAttribute('x2'), +e.getAttribute('y2')]];
  } else {
    points = (e.getAttribute('d').match(/-?[0-9.]+,-?[0-9.]+/g) || []).map((p) => p.split(',').map(Number));
  }
  return { from: e.getAttribute('data-from'), to: e.getAttribute('data-to'), points };
});
return { boxes, edges };
"""


def segment_hits_box(a, b, box, margin=0.5):
    """Liang-Barsky: does the segment a-b enter the box shrunk by `margin`?"""
    left, top = box["x"] + margin, box["y"] + margin
    right, bottom = box["x"] + box["w"] - margin, box["y"] + box["h"] - margin
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - left), (dx, right - a[0]), (-dy, a[1] - top), (dy, bottom - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def distance_to_border(point, box):
    x, y = point
    dx = max(box["x"] - x, 0, x - (box["x"] + box["w"]))
    dy = max(box["y"] - y, 0, y - (box["y"] + box["h"]))
    return (dx * dx + dy * dy) ** 0.5


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
        # The filter is filled from the server's OpenAPI document at sign-in, then the list is read.
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#status-filter option")) > 1)
        self.wait(lambda d: d.find_element(By.ID, "intent-rows").get_attribute("data-status") == "all")

    def open_intent(self, intent_id, status="requires_capture"):
        Select(self.driver.find_element(By.ID, "status-filter")).select_by_value(status)
        # The rows of this filter, not the ones drawn before it (they are replaced, not updated).
        self.wait(lambda d: d.find_element(By.ID, "intent-rows").get_attribute("data-status") == status)
        self.driver.find_element(By.XPATH, '//tbody[@id="intent-rows"]//button[text()="%s"]' % intent_id).click()
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
        intent_id = self.manual_intent()
        self.sign_in()
        self.assertNotIn(self.server.key, self.driver.current_url, "the key is never in the URL")
        self.assertEqual(self.driver.execute_script("return document.cookie + JSON.stringify(localStorage) + JSON.stringify(sessionStorage)"), "{}{}")
        self.open_intent(intent_id)
        # Amounts in major units, as the page shows them.
        self.assertIn("USD", self.field("capture-label").text)
        self.field("capture-amount").send_keys("6.00")
        self.field("capture").click()
        self.wait(lambda d: "succeeded" in d.find_element(By.ID, "summary").text)
        self.wait(lambda d: d.find_element(By.ID, "action-done").text == "Captured $6.00 of $10.00; the intent is succeeded.")
        self.assertEqual(self.field("capture-amount").get_attribute("value"), "", "a done action's amount does not linger")
        # More decimals than the currency has: refused here, with what to type.
        self.field("refund-amount").send_keys("2.005")
        self.field("refund").click()
        self.wait(lambda d: "at most 2 digits after the point" in d.find_element(By.ID, "action-message").text)
        # A refund above what is refundable: the API's own error, shown as it is.
        self.field("refund-amount").clear()
        self.field("refund-amount").send_keys("50")
        self.field("refund").click()
        self.wait(lambda d: "HTTP 4" in d.find_element(By.ID, "action-message").text)
        self.assertEqual(self.field("action-done").text, "")
        self.field("refund-amount").clear()
        self.field("refund-amount").send_keys("2")
        self.field("refund").click()
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#refund-rows tr")) == 1)
        self.wait(lambda d: "of $2.00" in d.find_element(By.ID, "action-done").text)
        self.assertEqual(self.field("action-message").text, "")
        after = self.server.api("GET", "/v1/payment_intents/" + intent_id)
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

    def test_amount_fields_are_cleared_when_another_intent_opens(self):
        first, second = self.manual_intent(), self.manual_intent()
        self.sign_in()
        self.open_intent(first)
        self.field("capture-amount").send_keys("6")
        self.field("refund-amount").send_keys("1")
        self.field("resolve-note").send_keys("checked by phone")
        self.back_to_list()
        self.open_intent(second)
        for element_id in ("capture-amount", "refund-amount", "resolve-note"):
            self.assertEqual(self.field(element_id).get_attribute("value"), "", element_id)
        # So Capture with the field empty captures this intent whole, not a stale 6.
        self.field("capture").click()
        self.wait(lambda d: d.find_element(By.ID, "action-done").text == "Captured $10.00 of $10.00; the intent is succeeded.")
        self.assertEqual(self.server.api("GET", "/v1/payment_intents/" + second)["amount_captured"], 1000)
        self.assertEqual(self.server.api("GET", "/v1/payment_intents/" + first)["status"], "requires_capture")
        # Void the first one: the confirmation says what was done.
        self.back_to_list()
        self.open_intent(first)
        self.assertEqual(self.field("action-done").text, "", "no confirmation carried over from the other intent")
        self.field("cancel").click()
        self.wait(lambda d: d.find_element(By.ID, "action-done").text.startswith("Canceled: the intent is canceled"))

    def test_the_status_filter_offers_the_servers_own_statuses(self):
        with urllib.request.urlopen(self.server.url + "/openapi.json", timeout=60) as response:
            document = json.load(response)
        parameter = next(p for p in document["paths"]["/v1/payment_intents"]["get"]["parameters"] if p["name"] == "status")
        statuses = parameter["schema"]["enum"]
        self.sign_in()
        offered = [o.get_attribute("value") for o in self.driver.find_elements(By.CSS_SELECTOR, "#status-filter option")]
        self.assertEqual(offered, [""] + statuses)
        self.assertIn("expired", offered)
        self.assertNotIn("requires_confirmation", offered, "the server refuses it")
        # Every status offered is one the server takes.
        for status in statuses:
            Select(self.field("status-filter")).select_by_value(status)
            self.wait(lambda d: d.find_element(By.ID, "intent-rows").get_attribute("data-status") == status)
            self.assertEqual(self.field("list-message").text, "", status)

    def test_the_state_diagram_has_no_edge_through_a_box_and_every_arrowhead_shows(self):
        intent_id = self.manual_intent()
        self.sign_in()
        self.open_intent(intent_id)
        geometry = self.driver.execute_script(DIAGRAM_GEOMETRY)
        boxes, edges = geometry["boxes"], geometry["edges"]
        self.assertEqual(len(boxes), 8)
        self.assertEqual(len(edges), 18, "every move is drawn")
        by_name = {box["name"]: box for box in boxes}
        for edge in edges:
            name = "%s → %s" % (edge["from"], edge["to"])
            self.assertGreaterEqual(len(edge["points"]), 2, name)
            for a, b in zip(edge["points"], edge["points"][1:]):
                for box in boxes:
                    self.assertFalse(segment_hits_box(a, b, box), "%s crosses the %s box" % (name, box["name"]))
            # The arrowhead's tip is on its own box's border: outside every box, against its target.
            tip = edge["points"][-1]
            self.assertLess(distance_to_border(tip, by_name[edge["to"]]), 1.0, name + " ends on its box")
            self.assertLess(distance_to_border(edge["points"][0], by_name[edge["from"]]), 1.0, name + " starts on its box")
        tips = [(e["points"][-1], "%s → %s" % (e["from"], e["to"])) for e in edges]
        for index, (tip, name) in enumerate(tips):
            for other, other_name in tips[index + 1:]:
                gap = ((tip[0] - other[0]) ** 2 + (tip[1] - other[1]) ** 2) ** 0.5
                self.assertGreater(gap, 8, "the arrowheads of %s and %s overlap" % (name, other_name))
        self.screenshot("console-diagram.png", "#state-diagram")

    def test_attempts_and_the_processor_ledger_read_side_by_side_at_1400_px(self):
        intent_id = self.manual_intent()
        self.server.api("POST", "/v1/payment_intents/%s/capture" % intent_id, {"amount": 600})
        self.server.api("POST", "/v1/refunds", {"payment_intent": intent_id, "amount": 100})
        self.driver.set_window_size(1400, 1000)
        try:
            self.sign_in()
            self.open_intent(intent_id, status="succeeded")
            self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ledger-rows tr")) == 3)
            tables = self.driver.execute_script("""
                return Array.from(document.querySelectorAll('.ledgers table'), (t) => {
                  const r = t.getBoundingClientRect();
                  return { scroll: t.scrollWidth, client: t.clientWidth, left: r.left, right: r.right, top: r.top };
                });""")
            for table in tables:
                self.assertLessEqual(table["scroll"], table["client"] + 1, "no horizontal scrolling: %r" % table)
            attempts, ledger = tables[0], tables[-1]
            self.assertGreaterEqual(ledger["left"], attempts["right"], "the processor's ledger is beside PayPanel's attempts")
            self.assertLess(abs(ledger["top"] - attempts["top"]), 60, "at the same height")
            self.screenshot("console-ledgers.png", ".ledgers")
        finally:
            self.driver.set_window_size(900, 1000)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=OPTIONS["binary"])
    parser.add_argument("--screenshots", help="save the intent view's PNGs here (docs/)")
    arguments, rest = parser.parse_known_args()
    OPTIONS["binary"] = os.path.abspath(arguments.binary)
    OPTIONS["screenshots"] = arguments.screenshots and os.path.abspath(arguments.screenshots)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
