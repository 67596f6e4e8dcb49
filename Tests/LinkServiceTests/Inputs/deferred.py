#!/usr/bin/env python3
"""Opens a link's landing page in headless Chromium as an Android phone and as an iPhone, and
reports what a deferred deep link looks like to each.

    deferred.py CHROMIUM ORIGIN CODE

Android: the href of the store button (it should carry referrer=sy_claim%3DTOKEN).
iPhone: the clipboard after loading the page (it must be untouched), the claim URL behind
"Get the app", where tapping it goes, and the clipboard after the tap (it should hold the claim
URL). The clipboard is read and written through navigator.clipboard on a page of ORIGIN, with
the permission granted for ORIGIN; the tap is a real mouse press and release (a user gesture).
Driven over --remote-debugging-pipe with navigate.py's Browser. Prints one JSON object.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from navigate import Browser  # noqa: E402

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/18.1 Mobile/15E148 Safari/604.1")
ANDROID = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/124.0.0.0 Mobile Safari/537.36")


class Tab:
    def __init__(self, browser, origin):
        self.browser = browser
        self.target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": self.target, "flatten": True})["sessionId"]
        for method in ["Page.enable", "Network.enable", "Runtime.enable"]:
            self.send(method)
        self.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        browser.send("Browser.grantPermissions", {"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})

    def send(self, method, params=None):
        return self.browser.send(method, params, session=self.session)

    def go(self, url):
        self.browser.events.clear()
        self.send("Page.navigate", {"url": url})
        if self.browser.wait_event(lambda e: e.get("method") == "Page.loadEventFired" and e.get("sessionId") == self.session, 15) is None:
            raise TimeoutError("page did not load: " + url)

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True, "userGesture": True})
        if "exceptionDetails" in result:
            return {"exception": result["exceptionDetails"].get("exception", {}).get("description", "error")}
        return result["result"].get("value")


def android(chromium, origin, code):
    browser = Browser(chromium, ANDROID)
    try:
        tab = Tab(browser, origin)
        tab.go(origin + "/i/" + code)
        return {"store": tab.evaluate("(() => { const a = document.getElementById('fallback'); return a ? a.href : null })()"),
                "getApp": tab.evaluate("document.getElementById('get-app') !== null")}
    finally:
        browser.close()


def iphone(chromium, origin, code):
    browser = Browser(chromium, IPHONE)
    try:
        tab = Tab(browser, origin)
        # Something else on the clipboard first, written from a page of the service's origin.
        tab.go(origin + "/healthz")
        wrote = tab.evaluate("navigator.clipboard.writeText('something the person copied').then(() => 'ok')")
        tab.go(origin + "/i/" + code)
        time.sleep(2)  # the page's scripts have run
        claim = tab.evaluate("(() => { const a = document.getElementById('get-app'); return a ? a.getAttribute('data-claim') : null })()")
        box = tab.evaluate("(() => { const r = document.getElementById('get-app').getBoundingClientRect();"
                           " return [r.left + r.width / 2, r.top + r.height / 2] })()")
        tab.go(origin + "/healthz")
        after_load = tab.evaluate("navigator.clipboard.readText()")
        # Back to the page, and a real tap on "Get the app".
        tab.go(origin + "/i/" + code)
        claim_tapped = tab.evaluate("document.getElementById('get-app').getAttribute('data-claim')")
        browser.events.clear()
        for kind in ["mousePressed", "mouseReleased"]:
            tab.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})
        went = browser.wait_event(lambda e: e.get("sessionId") == tab.session and e.get("method") == "Network.requestWillBeSent"
                                  and e["params"].get("type") == "Document", 5)
        tab.go(origin + "/healthz")
        after_tap = tab.evaluate("navigator.clipboard.readText()")
        return {"wroteFirst": wrote, "claimOnFirstLoad": claim, "clipboardAfterLoad": after_load, "claimTapped": claim_tapped,
                "navigatedTo": went["params"]["request"]["url"] if went else None, "clipboardAfterTap": after_tap}
    finally:
        browser.close()


def main():
    chromium, origin, code = sys.argv[1:4]
    report = {}
    try:
        report["android"] = android(chromium, origin, code)
        report["iphone"] = iphone(chromium, origin, code)
    except Exception as error:  # reported, so the test says what happened
        report["failure"] = f"{type(error).__name__}: {error}"
    print(json.dumps(report))


if __name__ == "__main__":
    main()
