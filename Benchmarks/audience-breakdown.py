#!/usr/bin/env python3
"""A million visit records in a SQLite store, and the time `GET /api/links/{code}/stats?by=…` and
`GET /api/stats?by=…` take over 90 days: first read from the records (a server with
`visits.record: false`, which never rolls up), then from the daily rollups (the same store served
with records on: the start rolls up every day that is over), in one run.

    python3 Benchmarks/audience-breakdown.py [--binary .build/release/switchyard] [--visits 1000000] [--repeat 15]

Prints the median and worst wall time per request (curl's time_total over loopback) and the
ratio records/rollups per breakdown. Uses ports 8390 and 8391 and a scratch directory in /tmp.
"""
import argparse, atexit, json, os, random, shutil, sqlite3, statistics, subprocess, sys, tempfile, time, urllib.error, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--binary", default=".build/release/switchyard")
parser.add_argument("--visits", type=int, default=1_000_000)
parser.add_argument("--links", type=int, default=50)
parser.add_argument("--repeat", type=int, default=15)
args = parser.parse_args()
binary = os.path.abspath(args.binary)
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = tempfile.mkdtemp(prefix="switchyard-audience-")
db = os.path.join(work, "links.sqlite")
# The example's own rate limits would refuse a benchmark's burst of reads.
example = open(os.path.join(root, "Sources/LinkService/Resources/example-config.yaml")).read().split("\nrateLimit:")[0]
for name, record in (("records.yaml", "false"), ("rollups.yaml", "true")):
    open(os.path.join(work, name), "w").write(example + f"\nvisits: {{record: {record}, retentionDays: 3650}}\nresolve: {{offline: true}}\n"
                                             "rateLimit: {perToken: {perMinute: 100000, burst: 10000}, perAddress: {perMinute: 100000, burst: 10000}}\n")

servers = []
atexit.register(lambda: [s.kill() for s in servers if s.poll() is None])

def serve(config, port):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
        sys.exit(f"port {port} is in use already: stop what listens there")
    except urllib.error.HTTPError:
        sys.exit(f"port {port} is in use already: stop what listens there")
    except OSError:
        pass
    p = subprocess.Popen([binary, "serve", "--config", config, "--port", str(port), "--database", "sqlite:" + db, "--log-level", "warning"],
                         cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    servers.append(p)
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1); return p
        except Exception: time.sleep(0.1)
    sys.exit("the server did not start: " + p.stderr.read().decode())

# A first start migrates the store; then the token and the links.
p = serve(os.path.join(work, "records.yaml"), 8390); p.terminate(); p.wait()
token = subprocess.run([binary, "token", "create", "--name", "bench", "--database", "sqlite:" + db], capture_output=True, text=True, cwd=work).stdout.strip().splitlines()[-1]
random.seed(7)
countries = [("US", "CA", "San Francisco"), ("US", "NY", "New York"), ("GB", "ENG", "London"), ("DE", "BE", "Berlin"), ("FR", "IDF", "Paris"),
             ("IN", "MH", "Mumbai"), ("BR", "SP", "São Paulo"), ("JP", "13", "Tokyo"), ("NG", "LA", "Lagos"), ("AU", "NSW", "Sydney")]
countries += [(f"C{i}", None, None) for i in range(40)]
software = [("Mobile Safari", "iOS", "iPhone", "ios"), ("Chrome Mobile", "Android", "Pixel 8", "android"), ("Chrome", "Windows", "Other", "desktop"),
            ("Firefox", "Linux", "Other", "desktop"), ("Safari", "Mac OS X", "Mac", "desktop"), ("Samsung Internet", "Android", "Samsung SM-S911B", "android")]
sources = [None, None, "newsletter", "twitter", "instagram", "google"]
now = int(time.time()); today = now // 86400
codes = [f"bench{i:03d}" for i in range(args.links)]
con = sqlite3.connect(db)
con.executemany("INSERT INTO links (code, kind, deep_link, parameters, created_at, clicks) VALUES (?, 'link', 'plur://group/b', '{}', ?, 0)",
                [(c, now * 1000) for c in codes])
rows = []
for i in range(args.visits):
    # The first link takes a fifth of every visit: the busiest link's breakdown is the worst one.
    code = codes[0] if i % 5 == 0 else random.choice(codes)
    day = today - 1 - random.randrange(90)
    c = random.choice(countries); s = random.choice(software)
    rows.append((code, day * 86400 + random.randrange(86400), s[3], None, 0, None, 1, "EU", c[0], c[1], c[2], s[0], s[1], s[2],
                 random.choice(sources), None, random.choice([None, "spring", "launch"]), None, None, f"{code}-{day}-v{random.randrange(args.visits // 300)}"))
con.executemany("INSERT INTO visits (code, second, platform, referrer_host, bot, address, visits, continent, country, region, city, browser, os, device, "
                "utm_source, utm_medium, utm_campaign, utm_term, utm_content, visitor) VALUES (" + ", ".join(["?"] * 20) + ")", rows)
con.commit(); con.close()
print(f"{args.visits} visit records over 90 days, {args.links} links ({codes[0]} has a fifth of them)", flush=True)

start_day = time.strftime("%Y-%m-%d", time.gmtime((today - 90) * 86400)); end_day = time.strftime("%Y-%m-%d", time.gmtime((today - 1) * 86400))
queries = [(f"/api/links/{codes[0]}/stats?by={by}&from={start_day}&to={end_day}", f"one link, by={by}") for by in ("country", "city", "browser", "day")]
queries += [(f"/api/stats?by={by}&from={start_day}&to={end_day}", f"all links, by={by}") for by in ("country", "utm_source")]

def measure(port):
    out = {}
    for path, label in queries:
        times = []
        answer = None
        for _ in range(args.repeat):
            r = subprocess.run(["curl", "-s", "-o", os.path.join(work, "answer.json"), "-w", "%{http_code} %{time_total}", "-H", f"Authorization: Bearer {token}",
                                f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True)
            status, seconds = r.stdout.split()
            assert status == "200", (path, status, open(os.path.join(work, "answer.json")).read())
            times.append(float(seconds) * 1000)
            answer = json.load(open(os.path.join(work, "answer.json")))
        out[label] = (statistics.median(times), max(times), answer["visits"], answer["uniques"])
        print(f"  port {port}: {label}: median {out[label][0]:.1f} ms", flush=True)
    return out

p = serve(os.path.join(work, "records.yaml"), 8390)
from_records = measure(8390)
p.terminate(); p.wait()
started = time.time()
p = serve(os.path.join(work, "rollups.yaml"), 8391)
# The start rolls up every day that is over; the breakdowns answer from the rollups once it has.
while True:
    con = sqlite3.connect(db); mark = con.execute("SELECT day FROM visit_rollup_marks WHERE name = 'visits'").fetchone(); con.close()
    if mark: break
    time.sleep(0.2)
rolled_in = time.time() - started
from_rollups = measure(8391)
p.terminate(); p.wait()
print(f"rolled up 90 days in {rolled_in:.1f} s (the server's start, once)")
print(f"{'breakdown over 90 days':28} {'records: median / worst ms':>28} {'rollups: median / worst ms':>28} {'ratio':>7}")
for _, label in queries:
    a, b = from_records[label], from_rollups[label]
    assert a[2:] == b[2:], (label, a, b)
    print(f"{label:28} {a[0]:16.1f} / {a[1]:7.1f} {b[0]:18.1f} / {b[1]:7.1f} {a[0] / b[0]:6.1f}x   ({b[2]} visits, {b[3]} visitors)")
shutil.rmtree(work)
