#!/usr/bin/env python3
"""Walks a protected link in headless Chromium as a person would: the form, a wrong password,
the right one, the cookie, the link's page, and the form again once the cookie is gone.

    protected.py CHROMIUM PAGE_URL WRONG RIGHT SCREENSHOT_DIR

Driven over --remote-debugging-pipe with navigate.py's Browser (no extra Python package).
Prints one JSON object with what each step found; screenshots go to SCREENSHOT_DIR
(protected-form.png, protected-wrong.png, protected-open.png).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dashboard import Tab, walk  # noqa: E402
from navigate import Browser  # noqa: E402

DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"


def state(tab):
    return tab.run("""(() => ({
        url: location.href,
        title: document.title,
        heading: (document.querySelector('h1') || {}).textContent || null,
        form: !!document.querySelector('form input[type=password]#password'),
        problem: (document.querySelector('#problem') || {}).textContent || null,
        text: document.body.innerText,
        cookieVisibleToScript: document.cookie.includes('switchyard-unlock'),
    }))()""")


def cookies(tab):
    return [{k: c.get(k) for k in ("name", "path", "httpOnly", "sameSite", "secure", "expires", "session")}
            for c in tab.send("Network.getAllCookies")["cookies"] if c["name"].startswith("switchyard-unlock")]


def type_and_submit(tab, password):
    tab.run("document.querySelector('#password').value = %s" % json.dumps(password))
    tab.submit("document.querySelector('button#unlock').click()")


def main():
    chromium, page, wrong, right, shots = sys.argv[1:6]
    browser = Browser(chromium, DESKTOP)
    tabs = []

    def steps(report):
        tab = Tab(browser)
        tabs.append(tab)
        tab.send("Network.enable")
        tab.send("Emulation.setDeviceMetricsOverride", {"width": 800, "height": 600, "deviceScaleFactor": 1, "mobile": False})
        tab.go(page)
        report["form"] = state(tab)
        tab.screenshot(os.path.join(shots, "protected-form.png"))

        type_and_submit(tab, wrong)
        report["wrong"] = state(tab)
        report["wrongCookies"] = cookies(tab)
        tab.screenshot(os.path.join(shots, "protected-wrong.png"))

        type_and_submit(tab, right)
        report["open"] = state(tab)
        report["cookies"] = cookies(tab)
        tab.screenshot(os.path.join(shots, "protected-open.png"))

        # The cookie opens the page again; without it, the form is back.
        tab.go(page)
        report["again"] = state(tab)
        tab.send("Network.clearBrowserCookies")
        tab.go(page)
        report["cleared"] = state(tab)

    walk(browser, steps, lambda: state(tabs[0]))


if __name__ == "__main__":
    main()
