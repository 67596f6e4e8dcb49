#!/usr/bin/env python3
"""Opens a landing page in headless Chromium as a phone whose User-Agent is the platform
browser's own, once as that browser and once inside an app's webview that puts its objects on
`window` before the page runs (as Telegram's does), and reports what each shows.

    webview.py CHROMIUM PAGE_URL USER_AGENT GLOBAL SCREENSHOT

GLOBAL is the name the app's webview defines (TelegramWebviewProxy). Prints one JSON object:
{"browser": STATE, "webview": STATE}, where STATE lists the way-out blocks that are shown (their
button's href and text, and the hint) and the href of "Open in the app". The webview's page is
saved as a PNG to SCREENSHOT. Driven over --remote-debugging-pipe with navigate.py's Browser.
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from navigate import Browser  # noqa: E402

STATE = """(() => ({
  shown: [...document.querySelectorAll('.webview-escape')].filter(d => !d.hidden && d.offsetParent !== null).map(d => ({
    href: d.querySelector('a').getAttribute('href'),
    text: d.querySelector('a').textContent,
    hint: d.querySelector('.hint').textContent,
  })),
  hidden: [...document.querySelectorAll('.webview-escape')].filter(d => d.hidden).length,
  openApp: (document.getElementById('open-app') || {href: null}).href,
}))()"""


def visit(chromium, url, agent, define, screenshot=None):
    browser = Browser(chromium, agent)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Page.enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}, session=session)
        if define:
            # What the app's webview does: its object is on window before any of the page's scripts.
            browser.send("Page.addScriptToEvaluateOnNewDocument", {"source": "window.%s = {postEvent: function () {}};" % define}, session=session)
        browser.events.clear()
        browser.send("Page.navigate", {"url": url}, session=session)
        if browser.wait_event(lambda e: e.get("method") == "Page.loadEventFired" and e.get("sessionId") == session, 20) is None:
            raise TimeoutError("the page did not load")
        result = browser.send("Runtime.evaluate", {"expression": STATE, "returnByValue": True}, session=session)
        if "exceptionDetails" in result:
            raise RuntimeError(json.dumps(result["exceptionDetails"]))
        if screenshot:
            data = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
            with open(screenshot, "wb") as f:
                f.write(base64.b64decode(data))
        return result["result"]["value"]
    finally:
        browser.close()


def main():
    chromium, url, agent, define, screenshot = sys.argv[1:6]
    print(json.dumps({"browser": visit(chromium, url, agent, None), "webview": visit(chromium, url, agent, define, screenshot)}))


if __name__ == "__main__":
    main()
