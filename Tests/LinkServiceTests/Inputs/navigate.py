#!/usr/bin/env python3
"""Clicks every link of some pages in headless Chromium and reports where the browser went.

    navigate.py CHROMIUM USER_AGENT PAGE_URL...

Chromium is driven over --remote-debugging-pipe (the DevTools protocol on file descriptors 3
and 4, messages ended by NUL), so no extra Python package is needed. Every host except
127.0.0.1 resolves to nothing, so no request leaves the machine; the navigation is recorded when
the browser decides on it (Network.requestWillBeSent for the document), before any DNS lookup.

Prints one JSON object: {"PAGE_URL": [{"href": …, "navigatedTo": … or null}, …], …}.
"""
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium, user_agent):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def child():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
            # dup2 onto the same number keeps close-on-exec; Chromium must inherit both.
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.profile = tempfile.mkdtemp(prefix="sy-chromium-")
        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--user-data-dir=" + self.profile, "--remote-debugging-pipe",
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             "--user-agent=" + user_agent, "about:blank"],
            preexec_fn=child, close_fds=False, stdout=subprocess.DEVNULL, stderr=None if os.environ.get("NAVIGATE_DEBUG") else subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=20):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self.receive(deadline)
            if m is None:
                raise TimeoutError(method)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.from_chrome], [], [], left)[0]:
                return None
            chunk = os.read(self.from_chrome, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def wait_event(self, predicate, timeout):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if predicate(e):
                    return self.events.pop(i)
            m = self.receive(deadline)
            if m is None:
                return None
            self.events.append(m)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def visit(browser, page_url):
    """Loads the page once per link, clicks that link, and records the navigation it starts."""
    results = []
    index = 0
    while True:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Page.enable", session=session)
        browser.send("Network.enable", session=session)
        browser.send("Page.navigate", {"url": page_url}, session=session)
        if browser.wait_event(lambda e: e.get("method") == "Page.loadEventFired" and e.get("sessionId") == session, 15) is None:
            raise TimeoutError("page did not load: " + page_url)
        browser.events.clear()
        script = ("(() => { const a = document.querySelectorAll('a[href]')[%d]; if (!a) return null;"
                  " const href = a.href; a.click(); return href; })()" % index)
        href = browser.send("Runtime.evaluate", {"expression": script, "returnByValue": True}, session=session)["result"].get("value")
        if href is None:
            browser.send("Target.closeTarget", {"targetId": target})
            return results
        # The page's own script may go to the fallback 1.5 s after "Open in the app": wait for it.
        went = browser.wait_event(lambda e: e.get("sessionId") == session and e.get("method") == "Network.requestWillBeSent"
                                  and e["params"].get("type") == "Document" and e["params"]["request"]["url"] != page_url, 3)
        results.append({"href": href, "navigatedTo": went["params"]["request"]["url"] if went else None})
        browser.send("Target.closeTarget", {"targetId": target})
        index += 1


def main():
    chromium, user_agent, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    browser = Browser(chromium, user_agent)
    try:
        report = {page: visit(browser, page) for page in pages}
    finally:
        browser.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
