#!/usr/bin/env python3
"""Durability check for `switchyard serve`: SIGKILL the service while clients create links,
restart it on the same database, and check that every link whose create returned 201 is there.

    python3 Scripts/durability.py --binary .build/debug/switchyard [--database URL] [--rounds 3]

Prints one JSON summary line; exits 1 if any acknowledged link is missing or wrong.
"""
import argparse, atexit, json, os, random, re, shutil, signal, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def config_with_open_limits(binary):
    """The example configuration with rate limits raised, so clients are not throttled."""
    resources = os.path.join(os.path.dirname(os.path.abspath(binary)), "Switchyard_LinkService.resources", "example-config.yaml")
    lines, keep = [], True
    for line in open(resources, encoding="utf-8").read().split("\n"):
        if re.match(r"^[A-Za-z]", line):
            keep = not line.startswith("rateLimit:")
        if keep:
            lines.append(line)
    lines += ["rateLimit:", "  perToken: {perMinute: 6000000, burst: 100000}", "  perAddress: {perMinute: 6000000, burst: 100000}"]
    path = os.path.join(temporary_directory(), "config.yaml")
    open(path, "w", encoding="utf-8").write("\n".join(lines) + "\n")
    return path


def temporary_directory():
    """A new directory, removed when the script exits."""
    path = tempfile.mkdtemp(prefix="switchyard-durability-")
    atexit.register(shutil.rmtree, path, True)
    return path


def start(binary, config, database):
    proc = subprocess.Popen([binary, "serve", "--config", config, "--port", "0", "--database", database, "--log-level", "notice"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("msg") == "listening":
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()  # keep draining
            return proc, entry["url"]
    proc.kill()
    raise SystemExit("durability: the service did not start (no 'listening' log line)")


def request(method, url, token, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--database", help="default: a new SQLite file")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    database = args.database or "sqlite:" + os.path.join(temporary_directory(), "links.sqlite")
    config = config_with_open_limits(args.binary)
    token = subprocess.run([args.binary, "token", "create", "--name", "durability-%d" % os.getpid(), "--database", database],
                           check=True, capture_output=True, text=True).stdout.strip().split("\n")[-1]

    acknowledged = {}          # code -> deep link sent
    lock = threading.Lock()
    errors = []
    for round_ in range(args.rounds):
        proc, base = start(args.binary, config, database)
        stop = threading.Event()

        def client(n):
            i = 0
            while not stop.is_set():
                deep = "plur://group/r%d-c%d-%d" % (round_, n, i)
                i += 1
                try:
                    status, body = request("POST", base + "/api/links", token, {"deepLink": deep})
                except Exception:
                    return          # the server is gone
                if status == 201:
                    with lock:
                        acknowledged[body["code"]] = deep
                elif status != 503:
                    errors.append("round %d: create answered %d: %s" % (round_, status, body))
                    return

        threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.5, 2.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stop.set()
        for t in threads:
            t.join()

    proc, base = start(args.binary, config, database)
    missing, wrong = [], []
    visited, clicks_before = None, 0
    try:
        for code, deep in acknowledged.items():
            status, body = request("GET", base + "/api/links/" + code, token)
            if status != 200:
                missing.append(code)
            elif body.get("deepLink") != deep:
                wrong.append(code)
        # Clicks are written once a second and at a graceful stop: visit a page, SIGTERM at once.
        if acknowledged:
            visited = next(iter(acknowledged))
            clicks_before = request("GET", base + "/api/links/" + visited, token)[1]["clicks"]
            for _ in range(5):
                # A person's browser: Python's own User-Agent is a script's, which counts no click.
                urllib.request.urlopen(urllib.request.Request(base + "/i/" + visited, headers={"User-Agent": BROWSER}), timeout=10).read()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    if visited:
        proc, base = start(args.binary, config, database)
        try:
            clicks_after = request("GET", base + "/api/links/" + visited, token)[1]["clicks"]
            if clicks_after != clicks_before + 5:
                errors.append("clicks before SIGTERM not written: %d then %d after 5 visits" % (clicks_before, clicks_after))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    summary = {"database": database.split("@")[-1] if "@" in database else database, "rounds": args.rounds,
               "acknowledged": len(acknowledged), "missing": len(missing), "wrong": len(wrong), "errors": errors[:5]}
    print(json.dumps(summary))
    ok = not missing and not wrong and not errors and len(acknowledged) > 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
