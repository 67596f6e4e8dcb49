#!/usr/bin/env python3
"""Crash test for the relay inbox: several sender processes enqueue requests while senders and
the drainer are killed with SIGKILL at random moments and restarted. The drainer records each
request durably (`relay watch --record`). At the end every acknowledged send must have been
handled, and no request recorded twice.

    python3 Scripts/relay-crash.py --binary .build/debug/switchyard [--requests 10000] [--senders 4] [--seed N]

Prints one JSON summary line; exits 1 on a lost or doubly handled request.
"""
import argparse, atexit, json, os, random, shutil, signal, subprocess, sys, tempfile, threading, time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--requests", type=int, default=10000)
    ap.add_argument("--senders", type=int, default=4)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="switchyard-relay-crash-")
    atexit.register(shutil.rmtree, work, True)
    inbox, record = os.path.join(work, "inbox"), os.path.join(work, "handled.jsonl")
    env = dict(os.environ, SWITCHYARD_INBOX=inbox)

    acknowledged = set()          # ids whose send printed them (durable)
    lock = threading.Lock()
    kills = {"sender": 0, "drainer": 0}
    redeliveries = [0]

    def sender(n, urls):
        pending = list(urls)
        while pending:
            batch = rng.choice(["1", "1", "16"])       # single commits and group commits
            proc = subprocess.Popen([args.binary, "relay", "send", "--stdin", "--batch", batch, "--source", "sender-%d" % n], env=env,
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            killer = None
            if rng.random() < 0.7:
                killer = threading.Timer(rng.uniform(0.05, 0.6), lambda p=proc: (p.send_signal(signal.SIGKILL)))
                killer.start()
            def feed(p=proc, batch=list(pending)):
                try:
                    for u in batch:
                        p.stdin.write(u + "\n")
                    p.stdin.close()
                except (BrokenPipeError, ValueError, OSError):
                    pass
            threading.Thread(target=feed, daemon=True).start()
            done = 0
            for line in proc.stdout:
                with lock:
                    acknowledged.add(line.strip())
                done += 1
            proc.wait()
            if killer:
                killer.cancel()
            if proc.returncode == -signal.SIGKILL:
                with lock:
                    kills["sender"] += 1
            # URLs whose id was printed are done; the one in flight when killed may or may not be in
            # the inbox (unacknowledged either way), so it is sent again as a new request.
            pending = pending[done:]

    def drainer_loop(stop):
        while not stop.is_set():
            proc = subprocess.Popen([args.binary, "relay", "watch", "--record", record, "--poll", "0.5"], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            def count(p=proc):
                for line in p.stderr:
                    if "delivered again" in line:
                        redeliveries[0] += 1
            t = threading.Thread(target=count, daemon=True)
            t.start()
            time.sleep(rng.uniform(0.1, 0.8))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            t.join()
            kills["drainer"] += 1

    per = args.requests // args.senders
    threads = [threading.Thread(target=sender, args=(n, ["plur://crash/%d/%d" % (n, i) for i in range(per)])) for n in range(args.senders)]
    stop = threading.Event()
    drainer = threading.Thread(target=drainer_loop, args=(stop,))
    drainer.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    drainer.join()

    # A last, undisturbed drain until the inbox is empty.
    proc = subprocess.Popen([args.binary, "relay", "watch", "--record", record, "--poll", "0.2"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    threading.Thread(target=lambda: [redeliveries.__setitem__(0, redeliveries[0] + 1) for l in proc.stderr if "delivered again" in l], daemon=True).start()
    deadline = time.time() + 120
    requests_dir = os.path.join(inbox, "requests")
    while time.time() < deadline and any(n.endswith(".json") for n in os.listdir(requests_dir)):
        time.sleep(0.2)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)

    handled = []
    for line in open(record, encoding="utf-8") if os.path.exists(record) else []:
        try:
            handled.append(json.loads(line)["id"])
        except ValueError:
            pass            # a torn last line from a SIGKILL mid-append is not a record
    counts = {}
    for h in handled:
        counts[h] = counts.get(h, 0) + 1
    lost = sorted(acknowledged - set(counts))
    twice = sorted(h for h, c in counts.items() if c > 1)
    summary = {"seed": seed, "acknowledged": len(acknowledged), "handled": len(counts), "lost": len(lost), "handledTwice": len(twice),
               "redeliveriesRecognised": redeliveries[0], "senderKills": kills["sender"], "drainerKills": kills["drainer"],
               "leftInInbox": sum(1 for n in os.listdir(requests_dir) if n.endswith(".json")),
               "rejected": len(os.listdir(os.path.join(inbox, "rejected")))}
    print(json.dumps(summary))
    sys.exit(0 if not lost and not twice and len(acknowledged) >= args.requests and summary["leftInInbox"] == 0 else 1)


if __name__ == "__main__":
    main()
