"""Browser tests of the device simulator page (GET /demo) in a real headless Chromium; the
operator console's are in test_console_page.py, which uses this file's Server and browser set-up.

Starts a real `paypanel serve --test-root --port 0` in a temporary directory, drives the page
with Selenium and checks the outcome through the API with the server's secret key. Every wait
only bounds a hang (generous, for a loaded 2-core machine); nothing asserts on durations, and
every server a test starts is stopped by its pid.

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
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

OPTIONS = {"binary": ".build/debug/paypanel", "screenshots": None}
WAIT = 60  # seconds; bounds a hang only


class Server:
    """One `paypanel serve --test-root --port 0` (or without --test-root, or on a given port),
    stopped by its pid."""

    def __init__(self, binary, extra=(), test_root=True, port=0):
        self.directory = tempfile.mkdtemp(prefix="paypanel-browser-")
        self.stdout = open(os.path.join(self.directory, "serve.out"), "w+")
        self.stderr = open(os.path.join(self.directory, "serve.err"), "w+")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(port), *(["--test-root"] if test_root else []), "--worker-interval", "200",
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

    @property
    def port(self):
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    def halt(self):
        """Ends the process (by its pid) and keeps its files: the server is gone mid-flow."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def stop(self):
        self.halt()
        self.stdout.close()
        self.stderr.close()
        shutil.rmtree(self.directory, ignore_errors=True)


class BrowserTestCase(unittest.TestCase):
    """A server and a headless Chromium for the whole class."""

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

    def text_of(self, element_id):
        return self.driver.find_element(By.ID, element_id).text

    def emulate_screen(self, width, height):
        """The page's viewport as a phone's (CSS pixels), until reset_screen()."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})

    def reset_screen(self):
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


class DemoPageTests(BrowserTestCase):
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
        # The merchant's display name, as Apple Pay shows it; never its merchant identifier.
        self.assertEqual(self.text_of("sheet-pay-label"), "Pay Some Shop")
        self.assertEqual(self.text_of("sheet-merchant"), "Some Shop")
        self.assertEqual(self.driver.find_element(By.ID, "sheet-total").text, "$20.00")
        cards = [label.get_attribute("data-card") for label in self.driver.find_elements(By.CSS_SELECTOR, "#cards label")]
        self.assertIn("card_4242", cards)
        self.assertNotIn("card_1117", cards, "Discover is not in the seed request's networks")
        self.screenshot("demo-sheet.png")
        self.confirm()
        self.assertEqual(self.result_title(), "Done")
        self.assertIn("$20.00 paid to Some Shop", self.text_of("result-detail"))
        self.assertNotIn("com.sample", self.driver.find_element(By.CSS_SELECTOR, ".phone").get_attribute("textContent"))
        intent = self.server.api("GET", "/v1/payment_intents/" + self.intent_id())
        self.assertEqual(intent["status"], "succeeded")
        self.assertEqual(intent["amount"], 2000)

    def test_the_banner_names_the_merchant_not_its_identifier(self):
        self.driver.get(self.server.url + "/demo")
        self.visible("#banner")
        self.assertEqual(self.text_of("banner-subtitle"), "Some Shop")

    def test_the_calls_list_numbers_the_newest_highest_and_shows_every_number(self):
        self.open_panel()
        # Polling adds a call a second: wait for a few, then read the numbers as the list shows them.
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#calls li")) >= 4)
        numbers = self.driver.execute_script("return Array.from(document.querySelectorAll('#calls li'), (li) => li.value)")
        self.assertEqual(numbers, sorted(numbers, reverse=True), "newest on top, with the highest number")
        self.assertEqual(len(set(numbers)), len(numbers))
        # The markers sit in the list's left padding: it must hold "99999." in the list's own font.
        room, needed = self.driver.execute_script("""
            const list = document.getElementById('calls');
            const probe = document.createElement('span');
            probe.textContent = '99999. ';
            list.firstElementChild.append(probe);
            const width = probe.getBoundingClientRect().width;
            probe.remove();
            return [parseFloat(getComputedStyle(list).paddingLeft), width];""")
        self.assertGreaterEqual(room, needed, "a five-digit call number is not clipped")

    def test_a_decline_then_another_card(self):
        self.open_panel()
        self.driver.find_element(By.ID, "buy").click()
        self.visible("#sheet")
        self.choose_card("card_9995")
        self.confirm()
        self.wait(lambda d: "insufficient" in d.find_element(By.ID, "sheet-message").text.lower())
        message = self.text_of("sheet-message")
        # The payer's words once: no code, "another card" said one time.
        self.assertEqual(message.lower().count("another card"), 1, message)
        self.assertNotIn("insufficient_funds", message)
        self.assertNotIn("(", message)
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
        self.wait(lambda d: "bank could not verify" in d.find_element(By.ID, "sheet-message").text.lower())
        message = self.text_of("sheet-message")
        self.assertEqual(message.lower().count("another card"), 1, message)
        self.assertNotIn("authentication", message)
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

    def test_the_three_d_secure_buttons_stay_put_when_focus_moves(self):
        self.pay_into_three_d_secure()
        self.wait(EC.element_to_be_clickable((By.ID, "challenge-pass")))
        where = lambda: self.driver.execute_script(
            "return ['challenge-pass', 'challenge-fail'].map((id) => { const r = document.getElementById(id).getBoundingClientRect();"
            " return [r.left, r.top, r.width, r.height]; })")
        before = where()
        self.driver.find_element(By.ID, "challenge-pass").send_keys(Keys.TAB)
        self.wait(lambda d: d.switch_to.active_element.get_attribute("id") == "challenge-fail")
        self.assertEqual(where(), before, "the buttons do not move when focus moves to Fail")
        self.driver.find_element(By.ID, "challenge-fail").send_keys(Keys.SHIFT, Keys.TAB)
        self.wait(lambda d: d.switch_to.active_element.get_attribute("id") == "challenge-pass")
        self.assertEqual(where(), before, "nor when it moves back to Pass")
        heights = {size[3] for size in before}
        self.assertEqual(len(heights), 1, "Pass and Fail are one size: %r" % before)
        # Tab past Fail stays in the dialog (it is modal): focus comes round to Pass, nothing moves.
        self.driver.find_element(By.ID, "challenge-pass").send_keys(Keys.TAB)
        self.wait(lambda d: d.switch_to.active_element.get_attribute("id") == "challenge-fail")
        self.driver.switch_to.active_element.send_keys(Keys.TAB)
        self.wait(lambda d: d.switch_to.active_element.get_attribute("id") == "challenge-pass")
        self.assertEqual(where(), before)

    def test_on_a_320_by_568_screen_confirm_is_in_view(self):
        self.emulate_screen(320, 568)
        try:
            self.open_panel()
            self.driver.find_element(By.ID, "buy").click()
            self.visible("#sheet")
            bottom, height = self.driver.execute_script(
                "return [document.getElementById('confirm').getBoundingClientRect().bottom, window.innerHeight]")
            self.assertLessEqual(bottom, height, "Confirm is above the fold without scrolling")
            self.confirm()
            self.assertEqual(self.result_title(), "Done")
        finally:
            self.reset_screen()

    def test_an_unknown_outcome_says_it_is_being_checked_and_offers_nothing_that_pays_again(self):
        # A server on a virtual clock (--now): the bank's 30 s answer and the sheet's 25 s
        # deadline pass in virtual time, so the test does not wait them out.
        server = Server(OPTIONS["binary"], extra=["--now", "2026-12-01T10:00:00Z"])
        try:
            self.open_panel(server)
            self.driver.find_element(By.ID, "buy").click()
            self.visible("#sheet")
            self.choose_card("card_5556")
            self.confirm()
            self.assertEqual(self.result_title(), "Checking the payment")
            detail = self.text_of("result-detail")
            self.assertIn("being checked", detail)
            self.assertNotIn("try again", detail.lower())
            self.screenshot("demo-checking.png")
            phone = self.driver.find_element(By.CSS_SELECTOR, ".phone")
            offered = [b.text for b in phone.find_elements(By.TAG_NAME, "button") if b.is_displayed()]
            self.assertEqual(offered, ["Dismiss"], "nothing on screen pays again")
            intent = self.intent_id()
            self.assertNotEqual(server.api("GET", "/v1/payment_intents/" + intent)["status"], "succeeded")
            self.driver.find_element(By.ID, "dismiss-result").click()
            self.wait(lambda d: "still being checked" in d.find_element(By.ID, "status").text)
            self.assertFalse(self.driver.find_element(By.ID, "again").is_displayed(), "no new notification while the outcome is unknown")
        finally:
            server.stop()

    def test_the_server_stopped_mid_sheet_ends_in_a_message_and_cancel_works(self):
        server = Server(OPTIONS["binary"])
        try:
            self.open_panel(server)
            self.driver.find_element(By.ID, "buy").click()
            self.visible("#sheet")
            server.halt()
            self.confirm()
            self.wait(lambda d: "cannot be reached" in d.find_element(By.ID, "sheet-message").text)
            self.screenshot("demo-unreachable.png")
            self.assertNotEqual(self.text_of("status"), "Processing…")
            confirm = self.driver.find_element(By.ID, "confirm")
            self.assertEqual(confirm.text, "Confirm")
            self.assertTrue(confirm.is_enabled(), "the page can try again")
            # Trying again tries again: one more call, the same words.
            calls = len(self.driver.find_elements(By.CSS_SELECTOR, "#calls li"))
            confirm.click()
            self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#calls li")) > calls
                      and d.find_element(By.ID, "confirm").is_enabled())
            self.assertIn("cannot be reached", self.text_of("sheet-message"))
            # Escape closes the sheet, and focus goes back to the button that opened it.
            self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
            self.wait(EC.invisibility_of_element_located((By.ID, "sheet")))
            self.assertEqual(self.driver.switch_to.active_element.get_attribute("id"), "buy")
            # Cancel too, after another failed try.
            self.driver.find_element(By.ID, "buy").click()
            self.visible("#sheet")
            self.confirm()
            self.wait(lambda d: "cannot be reached" in d.find_element(By.ID, "sheet-message").text)
            self.driver.find_element(By.ID, "cancel-sheet").click()
            self.wait(EC.invisibility_of_element_located((By.ID, "sheet")))
        finally:
            server.stop()

    def test_a_server_without_test_root_says_how_to_enable_the_simulator(self):
        first = Server(OPTIONS["binary"])
        second = None
        try:
            self.open_panel(first)
            self.driver.find_element(By.ID, "buy").click()
            self.visible("#sheet")
            # The same address, now without --test-root: the page's demo key means nothing there.
            first.halt()
            second = Server(OPTIONS["binary"], test_root=False, port=first.port)
            self.confirm()
            self.wait(lambda d: "restart serve with --test-root" in d.find_element(By.ID, "sheet-message").text)
            self.assertNotIn("API key", self.text_of("sheet-message"))
            self.assertNotEqual(self.text_of("status"), "Processing…")
            self.driver.find_element(By.ID, "cancel-sheet").click()
            # The panel's reads are refused too, and the status line says why.
            self.wait(lambda d: "restart serve with --test-root" in d.find_element(By.ID, "status").text)
            # The page itself, loaded from that server, says how to turn the simulator on.
            self.driver.get(second.url + "/demo")
            self.assertEqual(self.visible("h1").text, "The device simulator is off")
            self.assertIn("paypanel serve --test-root", self.driver.find_element(By.TAG_NAME, "body").text)
        finally:
            first.stop()
            if second:
                second.stop()

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
        number = self.driver.find_element(By.ID, "card-number")
        expiry = self.driver.find_element(By.ID, "card-expiry")
        submit = self.driver.find_element(By.ID, "card-form-submit")
        calls = lambda: self.driver.find_element(By.ID, "calls").text
        # Checked before anything is sent, in the command-line form's words (CardNumber, CardExpiry).
        number.send_keys("4242 4242 4242 4241")
        expiry.send_keys("12/30")
        submit.click()
        self.wait(lambda d: "fails the Luhn check" in d.find_element(By.ID, "card-form-message").text)
        self.assertEqual(self.text_of("card-form-message"),
                         "The card number ending in 4241 is mistyped (it fails the Luhn check): check the digits.")
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("id"), "card-number")
        number.clear()
        number.send_keys("4242 4242 4242 4242")
        expiry.clear()
        expiry.send_keys("13/30")
        submit.click()
        self.wait(lambda d: d.find_element(By.ID, "card-form-message").text ==
                  'Expiry "13/30" is not a month and year: write MM/YY, such as 12/30.')
        expiry.clear()
        expiry.send_keys("01/20")
        submit.click()
        self.wait(lambda d: "Your card has expired" in d.find_element(By.ID, "card-form-message").text)
        self.assertNotIn("/pay", calls(), "nothing was sent while the form was wrong")
        expiry.clear()
        expiry.send_keys("12/30")
        submit.click()
        self.assertEqual(self.result_title(), "Done")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=OPTIONS["binary"])
    parser.add_argument("--screenshots", help="save the panel's and the sheet's PNG here (docs/)")
    arguments, rest = parser.parse_known_args()
    OPTIONS["binary"] = os.path.abspath(arguments.binary)
    OPTIONS["screenshots"] = arguments.screenshots and os.path.abspath(arguments.screenshots)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
