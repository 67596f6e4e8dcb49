#!/usr/bin/env python3
"""Uses the dashboard in headless Chromium as a person would: signs in with a token, creates a
link through the form, opens a link's page, and reports what the browser shows.

    dashboard.py CHROMIUM ORIGIN TOKEN VISITED_CODE SCREENSHOT_DIR [OTHER_CODE ...]

Each OTHER_CODE's link page is read too (its fields and its visits line).

Driven over --remote-debugging-pipe with navigate.py's Browser (no extra Python package).
Prints one JSON object with what each step found; screenshots go to SCREENSHOT_DIR.
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from navigate import Browser  # noqa: E402


class Tab:
    def __init__(self, browser):
        self.browser = browser
        self.target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": self.target, "flatten": True})["sessionId"]
        self.send("Page.enable")
        self.send("Emulation.setDeviceMetricsOverride", {"width": 1100, "height": 1400, "deviceScaleFactor": 1, "mobile": False})

    def send(self, method, params=None):
        return self.browser.send(method, params, session=self.session)

    def wait_load(self):
        event = self.browser.wait_event(lambda e: e.get("method") == "Page.loadEventFired" and e.get("sessionId") == self.session, 20)
        if event is None:
            raise TimeoutError("the page did not load")

    def go(self, url):
        self.browser.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_load()

    def run(self, script):
        result = self.send("Runtime.evaluate", {"expression": script, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{script}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def submit(self, script):
        """Runs a script that submits a form, and waits for the page it leads to."""
        self.browser.events.clear()
        self.run(script)
        self.wait_load()

    def save_form(self, fields):
        """Types each field's value (by its name) into the link form and saves it."""
        for name, value in fields.items():
            self.run("document.querySelector('#f-%s').value = %s" % (name, json.dumps(value)))
        self.submit("document.querySelector('button#save').click()")

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def state(self):
        return self.run("""(() => {
            const qr = document.querySelector('img#qr');
            const chart = document.querySelector('svg#clicks-chart');
            return {
              url: location.href,
              title: document.title,
              heading: (document.querySelector('h1') || {}).textContent || null,
              error: (document.querySelector('#error') || {}).textContent || null,
              notice: (document.querySelector('#notice') || {}).textContent || null,
              chart: chart ? {bars: chart.querySelectorAll('g.bar').length,
                              clicks: [...chart.querySelectorAll('g.bar')].map(g => Number(g.dataset.clicks)),
                              bot: [...chart.querySelectorAll('g.bar')].map(g => g.querySelectorAll('rect[fill="#ff9f0a"]').length),
                              width: chart.getBoundingClientRect().width} : null,
              referrers: [...document.querySelectorAll('table#referrers tbody tr')].map(r => [r.cells[0].textContent, Number(r.cells[1].textContent)]),
              botVisits: (document.querySelector('#bot-visits') || {}).textContent || null,
              totalClicks: (document.querySelector('#total-clicks') || {}).textContent || null,
              platforms: [...document.querySelectorAll('svg#platform-chart g.platform')].map(g => [g.dataset.platform, Number(g.dataset.clicks)]),
              qr: qr ? {complete: qr.complete, naturalWidth: qr.naturalWidth, src: qr.getAttribute('src')} : null,
              links: [...document.querySelectorAll('table#links a')].map(a => a.textContent),
              cookieVisibleToScript: document.cookie.includes('sy_admin'),
              errors: [...document.querySelectorAll('#error li')].map(li => li.textContent),
              routes: [...document.querySelectorAll('select#f-route option')].map(o => o.value),
              fields: Object.fromEntries([...document.querySelectorAll('dl#fields dt')].map(dt => [dt.textContent, dt.nextElementSibling.textContent])),
              visitsLine: ((document.querySelector('#total-clicks') || {}).parentElement || {}).textContent || null,
              audience: (document.querySelector('#audience-summary') || {}).textContent || null,
              daily: [...document.querySelectorAll('svg#daily-chart g.day')].map(g => [g.dataset.day, Number(g.dataset.visits), Number(g.dataset.visitors)]),
              dailyWidth: (() => { const c = document.querySelector('svg#daily-chart'); return c ? c.getBoundingClientRect().width : null; })(),
              range: [...document.querySelectorAll('form#audience-range input')].map(i => i.value),
              rangeError: (document.querySelector('#range-error') || {}).textContent || null,
              pageWidth: document.documentElement.scrollWidth,
              campaigns: [...document.querySelectorAll('table#campaigns tbody td:first-child')].map(td => td.textContent),
            };
        })()""")


def walk(browser, steps, state):
    """Runs steps(report) in the browser and prints the report as JSON: after an error, what it
    was and what the page showed then (state()); the browser is closed either way."""
    report = {}
    try:
        steps(report)
    except Exception as error:  # what went wrong, with what the page showed then
        report["failure"] = repr(error)
        try:
            report["failedOn"] = state()
        except Exception:
            pass
    finally:
        browser.close()
    print(json.dumps(report))


def main():
    chromium, origin, token, visited, shots = sys.argv[1:6]
    others = sys.argv[6:]
    browser = Browser(chromium, "Mozilla/5.0 (X11; Linux x86_64) dashboard-test")
    tabs = []

    def steps(report):
        tab = Tab(browser)
        tabs.append(tab)
        tab.go(origin + "/admin")
        report["start"] = tab.state()
        tab.run("document.querySelector('#token').value = %s" % json.dumps(token))
        tab.submit("document.querySelector('form#sign-in').submit()")
        report["signedIn"] = tab.state()
        tab.screenshot(os.path.join(shots, "dashboard-list.png"))

        tab.submit("document.querySelector('a#new-link').click()")
        report["form"] = tab.state()
        # Three bad fields: each is said, at once.
        tab.save_form({"deepLink": "javascript:alert(1)", "maxUses": "0", "expiresAt": "2027-02-30"})
        report["refused"] = tab.state()
        tab.screenshot(os.path.join(shots, "dashboard-refused.png"))
        tab.save_form({"deepLink": "plur://group/from-the-dashboard", "title": "Made in Chromium", "maxUses": "3", "expiresAt": "2030-06-30"})
        report["created"] = tab.state()
        tab.screenshot(os.path.join(shots, "dashboard-created.png"))

        tab.go(origin + "/admin/links/" + visited)
        report["visited"] = tab.state()
        tab.screenshot(os.path.join(shots, "dashboard-link.png"))
        # The audience's range, chosen with its form: the first day of the range only.
        first = report["visited"]["daily"][0][0] if report["visited"]["daily"] else None
        if first:
            tab.run("document.querySelector('form#audience-range input[name=from]').value = %s" % json.dumps(first))
            tab.run("document.querySelector('form#audience-range input[name=to]').value = %s" % json.dumps(first))
            tab.submit("document.querySelector('form#audience-range button').click()")
            report["ranged"] = tab.state()
        # At a phone's width: nothing wider than the screen.
        tab.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
        tab.go(origin + "/admin/links/" + visited)
        report["phone"] = tab.state()
        tab.screenshot(os.path.join(shots, "dashboard-link-phone.png"))
        tab.go(origin + "/admin")
        report["phoneList"] = tab.state()
        tab.screenshot(os.path.join(shots, "dashboard-list-phone.png"))
        tab.send("Emulation.setDeviceMetricsOverride", {"width": 1100, "height": 1400, "deviceScaleFactor": 1, "mobile": False})
        report["others"] = {}
        for code in others:
            tab.go(origin + "/admin/links/" + code)
            report["others"][code] = tab.state()

        tab.submit("document.querySelector('button#sign-out').click()")
        report["signedOut"] = tab.state()
        tab.go(origin + "/admin")
        report["afterSignOut"] = tab.state()

    walk(browser, steps, lambda: tabs[0].state())


if __name__ == "__main__":
    main()
