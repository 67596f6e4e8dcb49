#!/usr/bin/env python3
"""CPU per User-Agent: `switchyard agents parse` against ua-parser's Python package with its Rust
resolver, on the same regexes.yaml, in one run.

    python3 Benchmarks/user-agents.py [--binary .build/release/switchyard] [--python /path/to/venv/bin/python] [--rounds 3]
                                      [--bench Benchmarks/.build/release/switchyard-bench]

Every distinct User-Agent of uap-core's three test suites (Debian's uap-core package), each
parsed whole (browser, OS and device), no cache. Switchyard's figure is the process's CPU time
(user + system, from the kernel) for all of them less its CPU time for one (loading and compiling
the rules); the baseline's is the CPU time of its parse loop alone, measured inside it. With
--bench (`swift build -c release --package-path Benchmarks --product switchyard-bench`),
Switchyard's parse loop alone is measured the same way too (`switchyard-bench agents`), without
the command's reading and JSON writing. The baseline's Python needs `pip install 'ua-parser[regex]'`.
"""
import argparse, os, re, resource, subprocess, sys, tempfile

parser = argparse.ArgumentParser()
parser.add_argument("--binary", default=".build/release/switchyard")
parser.add_argument("--python", default=sys.executable)
parser.add_argument("--regexes", default="/usr/share/uap-core/regexes.yaml")
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--bench", help="switchyard-bench, to measure the parse loop alone as well")
args = parser.parse_args()

agents = []
seen = set()
for name in ("test_ua.yaml", "test_os.yaml", "test_device.yaml"):
    for line in open(os.path.join("/usr/share/uap-core/tests", name), encoding="utf-8"):
        m = re.match(r"\s*-?\s*user_agent_string:\s*(.*)$", line)
        if not m: continue
        text = m.group(1).strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1].replace("''", "'") if text[0] == "'" else bytes(text[1:-1], "utf-8").decode("unicode_escape")
        # One per line: a User-Agent with a line break is not one of them.
        if text and "\n" not in text and "\r" not in text and text not in seen:
            seen.add(text); agents.append(text)
work = tempfile.mkdtemp(prefix="switchyard-agents-")
every = os.path.join(work, "agents.txt"); one = os.path.join(work, "one.txt")
open(every, "w", encoding="utf-8").write("\n".join(agents) + "\n")
open(one, "w", encoding="utf-8").write(agents[0] + "\n")

def child_cpu(command, stdin):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdin, "rb") as f:
        subprocess.run(command, stdin=f, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

BASELINE = r"""
import sys, time
from ua_parser.loaders import load_yaml
from ua_parser.regex import Resolver
resolver = Resolver(load_yaml(sys.argv[1]))
from ua_parser import Domain
agents = [l.rstrip("\n") for l in open(sys.argv[2], encoding="utf-8")]
start = time.process_time()
for a in agents:
    resolver(a, Domain.ALL)
print(time.process_time() - start)
"""

print(f"{len(agents)} distinct User-Agents from uap-core's test suites; {args.rounds} rounds")
rows = []
loops = []
for r in range(args.rounds):
    ours = child_cpu([args.binary, "agents", "parse", "--jsonl", "--regexes", args.regexes], every) \
        - child_cpu([args.binary, "agents", "parse", "--jsonl", "--regexes", args.regexes], one)
    out = subprocess.run([args.python, "-c", BASELINE, args.regexes, every], capture_output=True, text=True)
    if out.returncode != 0: sys.exit("the baseline did not run (pip install 'ua-parser[regex]' for --python):\n" + out.stderr)
    theirs = float(out.stdout.strip())
    rows.append((ours / len(agents) * 1e6, theirs / len(agents) * 1e6))
    line = f"  round {r + 1}: switchyard {rows[-1][0]:.1f} µs, ua-parser (Rust resolver) {rows[-1][1]:.1f} µs per User-Agent, ratio {rows[-1][0] / rows[-1][1]:.2f}x"
    if args.bench:
        bench = subprocess.run([args.bench, "agents", "--agents", every, "--regexes", args.regexes], capture_output=True, text=True, check=True)
        # The best of its three rounds over the same list, as the loop's least disturbed figure.
        loop = min(float(m) for m in re.findall(r"round \d+: ([0-9.]+) µs", bench.stdout))
        loops.append((loop, rows[-1][1]))
        line += f"; parse loop alone {loop:.1f} µs, ratio {loop / rows[-1][1]:.2f}x"
    print(line)
rows.sort(key=lambda x: x[0] / x[1])
median = rows[len(rows) // 2]
print(f"median round: switchyard {median[0]:.1f} µs, ua-parser (Rust resolver) {median[1]:.1f} µs per User-Agent: {median[0] / median[1]:.2f}x its CPU (goal <= 1x)")
if loops:
    loops.sort(key=lambda x: x[0] / x[1])
    m = loops[len(loops) // 2]
    print(f"median round, parse loops alone: switchyard {m[0]:.1f} µs, ua-parser (Rust resolver) {m[1]:.1f} µs per User-Agent: {m[0] / m[1]:.2f}x")
