#!/usr/bin/env python3
"""Several `switchyard serve` nodes on one PostgreSQL behind nginx, as operators deploy them,
under a bounded load while a node is killed and restarted and the database restarts.

    python3 Scripts/fault-test.py --binary .build/release/switchyard [--nodes 3] [--duration 30] [--workers 8]

Everything runs on loopback: a throwaway PostgreSQL (.ci/postgres.sh), the nodes, and nginx
(Debian's) in front of them with the service's documented upstream. The load creates links (a
quarter of them use-limited), visits them as browsers, takes phones' claim tokens and redeems
each twice, and reads links through the API. During it: SIGKILL one node and start it again,
then restart PostgreSQL. Afterwards it checks:

- every create the service acknowledged (201) is there;
- no use-limited link answered more visits than its `maxUses`, nor counted more;
- every claim token was redeemed at most once;
- no node that stayed up answered 5xx outside the database restart (nginx's own 502s for the
  requests in flight at the SIGKILL are counted apart);
- a change made on one node reaches another within 200 ms (p99 over the changes made after).

Prints what it did and found, one line per check, and exits 1 when a check fails.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(url, method="GET", body=None, token=None, agent=BROWSER, timeout=10):
    """(status, body text, elapsed); status 0 when no answer came."""
    headers = {"User-Agent": agent}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    start = time.monotonic()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace"), time.monotonic() - start
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace"), time.monotonic() - start
    except (urllib.error.URLError, OSError) as e:
        return 0, "%s %s: %s" % (method, url, e), time.monotonic() - start


class Cluster:
    def __init__(self, binary, nodes, work):
        self.binary = os.path.abspath(binary)
        self.work = work
        self.processes = {}
        self.ports = [free_port() for _ in range(nodes)]
        self.front = free_port()
        out = subprocess.run(["bash", os.path.join(ROOT, ".ci/postgres.sh"), "start"], check=True, capture_output=True, text=True).stdout
        env = dict(re.findall(r"export (\w+)=(\S+)", out))
        self.pg_state = env["PG_STATE_DIR"]
        server_url = env["SWITCHYARD_TEST_POSTGRES"]
        name = "fault_%d" % os.getpid()
        subprocess.run(["psql", server_url, "-q", "-c", "CREATE DATABASE %s" % name], check=True, capture_output=True)
        self.database = server_url.replace("/postgres?", "/%s?" % name)
        self.pgbin = sorted(d for d in (os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql")) if os.path.exists(os.path.join(d, "pg_ctl")))[-1]
        # The example configuration, behind one proxy of our own, with limits out of the load's way.
        example = open(os.path.join(os.path.dirname(self.binary), "Switchyard_LinkService.resources", "example-config.yaml")).read()
        example = example.replace("service:\n  publicURL: https://rabble.community\n", "service:\n  publicURL: https://rabble.community\n  trustForwardedFor: true\n")
        example = re.sub(r"rateLimit:\n(  .*\n)+", "rateLimit:\n  perToken: {perMinute: 600000, burst: 60000}\n  perAddress: {perMinute: 600000, burst: 60000}\n", example)
        self.config = os.path.join(work, "switchyard.yaml")
        open(self.config, "w").write(example)
        made = subprocess.run([self.binary, "token", "create", "--name", "fault", "--database", self.database], check=True, capture_output=True, text=True)
        self.token = made.stdout.strip().splitlines()[-1]
        for i in range(nodes):
            self.start_node(i)
        self.nginx = self.start_nginx()

    def start_node(self, i):
        log = open(os.path.join(self.work, "node%d.log" % i), "a")
        self.processes[i] = subprocess.Popen([self.binary, "serve", "--config", self.config, "--database", self.database,
                                              "--port", str(self.ports[i]), "--log-level", "warning"],
                                             cwd=self.work, stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if request("http://127.0.0.1:%d/healthz" % self.ports[i], timeout=2)[0] == 200:
                return
            if self.processes[i].poll() is not None:
                raise RuntimeError("node %d exited: %s" % (i, open(log.name).read()[-2000:]))
            time.sleep(0.1)
        raise RuntimeError("node %d did not answer /healthz within 60 s" % i)

    def start_nginx(self):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        servers = "".join("    server 127.0.0.1:%d max_fails=1 fail_timeout=2s;\n" % p for p in self.ports)
        conf = os.path.join(self.work, "nginx.conf")
        open(conf, "w").write("""
daemon off; worker_processes 1; pid %(w)s/nginx.pid; error_log %(w)s/nginx-error.log warn;
events { worker_connections 1024; }
http {
  access_log off; client_body_temp_path %(w)s; proxy_temp_path %(w)s; fastcgi_temp_path %(w)s; uwsgi_temp_path %(w)s; scgi_temp_path %(w)s;
  upstream switchyard {
%(servers)s    keepalive 32;
  }
  server {
    listen 127.0.0.1:%(port)d;
    location / {
      proxy_pass http://switchyard;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
""" % {"w": self.work, "servers": servers, "port": self.front})
        process = subprocess.Popen([nginx, "-c", conf, "-p", self.work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while request("http://127.0.0.1:%d/healthz" % self.front, timeout=2)[0] != 200:
            if time.monotonic() > deadline:
                raise RuntimeError("nginx did not start: " + open(os.path.join(self.work, "nginx-error.log")).read())
            time.sleep(0.1)
        return process

    def restart_postgres(self):
        # The server's output goes to its log: a pipe of ours would be held open by the postmaster.
        subprocess.run(["runuser", "-u", "postgres", "--", os.path.join(self.pgbin, "pg_ctl"), "-D", os.path.join(self.pg_state, "data"),
                        "-l", os.path.join(self.pg_state, "server.log"), "-m", "fast", "-w", "-t", "60", "restart"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self):
        for p in list(self.processes.values()) + [getattr(self, "nginx", None)]:
            if p and p.poll() is None:
                p.terminate()
        for p in list(self.processes.values()) + [getattr(self, "nginx", None)]:
            if p:
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
        subprocess.run(["bash", os.path.join(ROOT, ".ci/postgres.sh"), "stop", self.pg_state], capture_output=True)


class Load:
    """The bounded load and what it saw."""

    def __init__(self, cluster, seconds, workers):
        self.c = cluster
        self.front = "http://127.0.0.1:%d" % cluster.front
        self.end = time.monotonic() + seconds
        self.workers = workers
        self.lock = threading.Lock()
        self.created = []           # acknowledged codes
        self.limited = {}           # code -> maxUses
        self.visits = {}            # code -> 200s seen
        self.claims = {}            # token -> list of redemption statuses
        self.answers = []           # (time, status, from nginx itself)
        self.failures = []          # why a request got no answer
        self.counter = 0

    def note(self, status, body, took):
        # nginx's own error pages are HTML naming nginx; the service answers JSON or its own pages.
        # Each answer is noted at the time its request was sent.
        by_nginx = status >= 500 and "nginx" in body
        with self.lock:
            self.answers.append((time.monotonic() - took, status, by_nginx))
        if status == 0:
            with self.lock:
                self.failures.append(body)

    def step(self, rng):
        with self.lock:
            self.counter += 1
            n = self.counter
            known = self.created[-200:]
        choice = rng.random()
        if choice < 0.3 or not known:
            limited = rng.random() < 0.25
            body = {"deepLink": "plur://group/f%d" % n, "title": "Fault %d" % n}
            if limited:
                body["maxUses"] = 3
            status, text, took = request(self.front + "/api/links", "POST", body, self.c.token)
            self.note(status, text, took)
            if status == 201:
                code = json.loads(text)["code"]
                with self.lock:
                    self.created.append(code)
                    if limited:
                        self.limited[code] = 3
        elif choice < 0.6:
            code = rng.choice(known)
            status, text, took = request(self.front + "/i/" + code)
            self.note(status, text, took)
            if status == 200:
                with self.lock:
                    self.visits[code] = self.visits.get(code, 0) + 1
        elif choice < 0.8:
            code = rng.choice(known)
            status, text, took = request(self.front + "/i/" + code, agent=IPHONE)
            self.note(status, text, took)
            m = re.search(r'data-claim="https://[^/]+/d/([A-Za-z0-9_-]{43})"', text)
            if status == 200 and m:
                token = m.group(1)
                outcomes = []
                for _ in range(2):
                    s, t, took = request(self.front + "/api/deferred/claim", "POST", {"token": token})
                    self.note(s, t, took)
                    outcomes.append(s)
                with self.lock:
                    self.claims[token] = outcomes
                if status == 200 and code in self.limited:
                    with self.lock:
                        self.visits[code] = self.visits.get(code, 0) + 1
        else:
            code = rng.choice(known)
            status, text, took = request(self.front + "/api/links/" + code, token=self.c.token)
            self.note(status, text, took)

    def run(self):
        def worker(seed):
            rng = random.Random(seed)
            while time.monotonic() < self.end:
                self.step(rng)
        with concurrent.futures.ThreadPoolExecutor(self.workers) as pool:
            list(pool.map(worker, range(self.workers)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--duration", type=float, default=30)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    if args.nodes < 2:
        parser.error("--nodes: at least 2 (a node is killed)")
    work = tempfile.mkdtemp(prefix="switchyard-fault-")
    cluster = Cluster(args.binary, args.nodes, work)
    failures = []
    try:
        print("fault-test: %d nodes on one PostgreSQL behind nginx (127.0.0.1:%d), %d workers for %.0f s; logs in %s"
              % (args.nodes, cluster.front, args.workers, args.duration, work), flush=True)
        load = Load(cluster, args.duration, args.workers)
        runner = threading.Thread(target=load.run)
        start = time.monotonic()
        runner.start()
        victim = args.nodes - 1
        time.sleep(args.duration * 0.25)
        cluster.processes[victim].send_signal(signal.SIGKILL)
        cluster.processes[victim].wait()
        killed = time.monotonic()
        print("  %.1f s: SIGKILL node %d" % (killed - start, victim), flush=True)
        time.sleep(args.duration * 0.15)
        cluster.start_node(victim)
        print("  %.1f s: node %d started again" % (time.monotonic() - start, victim), flush=True)
        time.sleep(max(0, start + args.duration * 0.6 - time.monotonic()))
        pg_down = time.monotonic()
        cluster.restart_postgres()
        pg_up = time.monotonic()
        print("  %.1f s: PostgreSQL restarted (%.2f s)" % (pg_down - start, pg_up - pg_down), flush=True)
        runner.join()

        # Let the pools reconnect before checking (a node's pool finds the database again on its own).
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and request(cluster.front and "http://127.0.0.1:%d/healthz" % cluster.ports[0])[0] != 200:
            time.sleep(0.2)

        ops = len(load.answers)
        statuses = {}
        for _, s, _ in load.answers:
            statuses[s] = statuses.get(s, 0) + 1
        print("  load: %d requests, statuses %s" % (ops, json.dumps(dict(sorted(statuses.items())))), flush=True)
        # A request sent during a fault may get no answer within the client's 10 s; any other may not.
        def in_a_fault(t):
            return killed - start - 0.5 <= t <= killed - start + 3 or pg_down - start - 0.5 <= t <= pg_up - start + 3
        unanswered = sorted(round(t - start, 2) for t, s, _ in load.answers if s == 0)
        if unanswered:
            print("  no answer within 10 s (status 0), sent at %s s: %s" % (unanswered[:10], sorted(set(f.split(": ", 1)[-1] for f in load.failures))[:3]), flush=True)
        if [t for t in unanswered if not in_a_fault(t)]:
            failures.append("requests sent outside the faults got no answer: %s" % [t for t in unanswered if not in_a_fault(t)][:10])

        node = "http://127.0.0.1:%d" % cluster.ports[0]
        missing = [c for c in load.created if request(node + "/api/links/" + c, token=cluster.token)[0] != 200]
        print("  acknowledged creates present afterwards: %d of %d" % (len(load.created) - len(missing), len(load.created)))
        if missing:
            failures.append("acknowledged creates missing: %s" % missing[:10])

        over = {c: load.visits.get(c, 0) for c, m in load.limited.items() if load.visits.get(c, 0) > m}
        counted_over = []
        for c, m in load.limited.items():
            s, t, _ = request(node + "/api/links/" + c, token=cluster.token)
            if s == 200 and json.loads(t).get("clicks", 0) > m:
                counted_over.append(c)
        print("  use-limited links: %d; visits answered past maxUses: %d; counted past maxUses: %d" % (len(load.limited), len(over), len(counted_over)))
        if over or counted_over:
            failures.append("maxUses exceeded: answered %s, counted %s" % (over, counted_over))

        twice = {t: o for t, o in load.claims.items() if o.count(200) > 1}
        print("  claim tokens: %d, each redeemed twice; redeemed more than once: %d" % (len(load.claims), len(twice)))
        if twice:
            failures.append("claims redeemed twice: %s" % list(twice.items())[:5])

        # 5xx from the nodes (not nginx's own), outside the database restart and a grace of 3 s.
        node_5xx = [(t - start, s) for t, s, by_nginx in load.answers if s >= 500 and not by_nginx]
        outside = [(round(t, 2), s) for t, s in node_5xx if not (pg_down - start - 0.5 <= t <= pg_up - start + 3)]
        nginx_5xx = [(round(t - start, 2), s) for t, s, by_nginx in load.answers if by_nginx]
        print("  5xx from nodes: %d during the database restart, %d outside it; nginx's own 5xx: %d (at %s s)"
              % (len(node_5xx) - len(outside), len(outside), len(nginx_5xx), sorted({t for t, _ in nginx_5xx})[:5]))
        if outside:
            failures.append("nodes answered 5xx outside the database restart: %s" % outside[:10])
        late_nginx = [t for t, _ in nginx_5xx if t > killed - start + 3]
        if late_nginx:
            failures.append("nginx answered 5xx long after the SIGKILL: %s" % late_nginx[:10])

        # Changes made on node 0 seen by the last node, once the database is back.
        other = "http://127.0.0.1:%d" % cluster.ports[-1]
        latencies = []
        for i in range(100):
            s, t, _ = request(node + "/api/links", "POST", {"deepLink": "plur://group/after", "title": "Before %d" % i}, cluster.token)
            if s != 201:
                failures.append("create after the faults: %d %s" % (s, t[:200]))
                break
            code = json.loads(t)["code"]
            request(other + "/i/" + code)  # the other node caches it
            request(node + "/api/links/" + code, "PATCH", {"title": "After %d" % i}, cluster.token)
            changed = time.monotonic()
            while time.monotonic() - changed < 5:
                if ("After %d" % i) in request(other + "/i/" + code)[1]:
                    latencies.append(time.monotonic() - changed)
                    break
                time.sleep(0.002)
            else:
                latencies.append(float("inf"))
        latencies.sort()
        p50 = latencies[len(latencies) // 2] * 1000
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
        print("  a change on node 0 seen on node %d: p50 %.1f ms, p99 %.1f ms over %d changes" % (args.nodes - 1, p50, p99, len(latencies)))
        if p99 > 200:
            failures.append("cross-node change p99 %.1f ms > 200 ms" % p99)
    finally:
        cluster.stop()
    for f in failures:
        print("FAILED: " + f)
    print("fault-test: %s" % ("passed" if not failures else "%d checks failed" % len(failures)))
    if failures:
        print("fault-test: the nodes' logs are kept in %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
