#!/usr/bin/env bash
# wrk against the release build of `switchyard serve` (AASA file and /i/{code}) and against nginx
# serving the same AASA bytes, in one run, on loopback. Prints requests/s, p50/p99 and ratios.
#   bash Benchmarks/service-wrk.sh [--duration 10] [--connections 64] [--rounds 3] [--database URL] [--binary PATH] [--before PATH] [--before-database URL] [--floor PATH] [--nio-floor PATH] [--config FILE] [--before-config FILE] [--host NAME]
# --binary measures that build of switchyard instead of building the release binary.
# --before PATH also runs that build (an older commit's release binary, with its resources beside
# it) as a second service and measures it in the same rounds, so a change is measured before and
# after in one run: each round gives both its ratio to nginx and after/before. It keeps its own
# SQLite database, or --before-database (a PostgreSQL database of its own, as an older build
# refuses a schema newer than it).
# Each round measures nginx, then the service's AASA, then /i/{code} for a desktop browser (the
# cached page) and for an iPhone (a page of its own with a deferred claim), then two requests on
# the router's path: an authenticated GET /api/links/{code}, and the AASA GET sent with
# `Connection: x-bench` (a request with a Connection header other than keep-alive skips the
# lane). Ratios are taken within a round (so a noisy moment hits both sides) and the median round
# is reported. Beside throughput, each run gives the server's CPU time per request (utime + stime
# of the serving processes from /proc, over the run, divided by the requests wrk counted): the
# figure that holds on a noisy host.
# --floor PATH also runs Hummingbird alone (`swift build -c release --package-path Benchmarks
# --product hummingbird-floor`: one route answering the same AASA bytes, no middleware) and
# measures it with the routed AASA's request: what the router path costs before any of the
# service's own code.
# --nio-floor PATH also runs SwiftNIO alone (`--product nio-floor`: NIO's HTTP/1 pipeline and one
# handler answering the same AASA bytes) and measures it as the lane's AASA is measured: the floor
# for anything built on NIO, against which the lane's AASA and desktop page are given as ratios.
# --config FILE serves that configuration instead of the example (its rateLimit replaced as the
# example's is), --before-config FILE gives the older build its own (default: the example), and
# --host NAME sends every request to the services with that Host: a configuration with several
# domains, measured against the single-domain build, measures what deciding the domain costs.
# Installs wrk and nginx from Debian's packages when missing. wrk, nginx and the service share
# the machine's cores, as they do on a small host.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=10; CONNECTIONS=64; ROUNDS=3; DATABASE=""; BIN=""; BEFORE=""; BEFORE_DATABASE=""; FLOOR=""; NIO_FLOOR=""; GIVEN_CONFIG=""; BEFORE_CONFIG=""; HOST_NAME=""
while (($#)); do
  case "$1" in
    --duration) DURATION=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --database) DATABASE=$2; shift 2 ;;
    --binary) BIN=$2; shift 2 ;;
    --before) BEFORE=$2; shift 2 ;;
    --before-database) BEFORE_DATABASE=$2; shift 2 ;;
    --floor) FLOOR=$2; shift 2 ;;
    --nio-floor) NIO_FLOOR=$2; shift 2 ;;
    --config) GIVEN_CONFIG=$2; shift 2 ;;
    --before-config) BEFORE_CONFIG=$2; shift 2 ;;
    --host) HOST_NAME=$2; shift 2 ;;
    *) echo "usage: $0 [--duration S] [--connections N] [--rounds N] [--database URL] [--binary PATH] [--before PATH] [--before-database URL] [--floor PATH] [--nio-floor PATH] [--config FILE] [--before-config FILE] [--host NAME]" >&2; exit 2 ;;
  esac
done

need=(); command -v wrk >/dev/null || need+=(wrk); command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || need+=(nginx)
if ((${#need[@]})); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

if [[ -z $BIN ]]; then
  echo "building the release binary…" >&2
  if ! out=$(swift build -c release --product switchyard 2>&1); then echo "$out" >&2; exit 1; fi
  BIN=$(swift build -c release --show-bin-path)/switchyard
fi

WORK=$(mktemp -d /tmp/switchyard-wrk.XXXXXX); chmod 755 "$WORK"
DATABASE=${DATABASE:-sqlite:$WORK/links.sqlite}
cleanup() { [[ -n "${SY_PID:-}" ]] && kill "$SY_PID" 2>/dev/null; [[ -n "${FLOOR_PID:-}" ]] && kill "$FLOOR_PID" 2>/dev/null; [[ -n "${NIO_PID:-}" ]] && kill "$NIO_PID" 2>/dev/null; [[ -n "${OLD_PID:-}" ]] && kill "$OLD_PID" 2>/dev/null; [[ -f $WORK/nginx.pid ]] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# The example configuration (or --config's) with the API's rate limits out of the way (one token
# and one address send every request here).
unlimited() {
  awk '/^[A-Za-z]/{keep = ($0 !~ /^rateLimit:/)} keep' "$1" > "$2"
  printf 'rateLimit:\n  perToken: {perMinute: 100000000, burst: 1000000}\n  perAddress: {perMinute: 100000000, burst: 1000000}\n' >> "$2"
}
EXAMPLE="$(dirname "$BIN")/Switchyard_LinkService.resources/example-config.yaml"
CONFIG=$WORK/config.yaml; unlimited "${GIVEN_CONFIG:-$EXAMPLE}" "$CONFIG"
OLD_CONFIG=$WORK/before-config.yaml; unlimited "${BEFORE_CONFIG:-$EXAMPLE}" "$OLD_CONFIG"
# The Host every request to the services names (wrk's and curl's default: the address).
HOST_ARGS=(); [[ -n $HOST_NAME ]] && HOST_ARGS=(-H "Host: $HOST_NAME")
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
SY_PORT=$(free_port); NG_PORT=$(free_port)

# start BINARY PORT DATABASE LOG CONFIG: runs a service, waits until it answers, makes the link to
# measure; sets STARTED_PID and STARTED_CODE.
start() {
  local token
  token=$("$1" token create --name wrk --database "$3" 2>/dev/null | tail -1)
  STARTED_TOKEN=$token
  "$1" serve --config "$5" --port "$2" --database "$3" --log-level warning 2>"$4" &
  STARTED_PID=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$2/healthz" >/dev/null && break; sleep 0.1; done
  STARTED_CODE=$(curl -sf -X POST "http://127.0.0.1:$2/api/links" -H "Authorization: Bearer $token" \
    -d '{"route":"appGroup","parameters":{"groupId":"bench"},"title":"Benchmark"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["code"])')
}
start "$BIN" "$SY_PORT" "$DATABASE" "$WORK/serve.log" "$CONFIG"; SY_PID=$STARTED_PID; CODE=$STARTED_CODE; TOKEN=$STARTED_TOKEN

# The older build, beside it, with a database of its own.
if [[ -n $BEFORE ]]; then
  OLD_PORT=$(free_port)
  start "$BEFORE" "$OLD_PORT" "${BEFORE_DATABASE:-sqlite:$WORK/before.sqlite}" "$WORK/before.log" "$OLD_CONFIG"; OLD_PID=$STARTED_PID; OLD_CODE=$STARTED_CODE; OLD_TOKEN=$STARTED_TOKEN
  wrk -t2 -c"$CONNECTIONS" -d2s "${HOST_ARGS[@]}" "http://127.0.0.1:$OLD_PORT/.well-known/apple-app-site-association" >/dev/null
  wrk -t2 -c"$CONNECTIONS" -d2s "${HOST_ARGS[@]}" "http://127.0.0.1:$OLD_PORT/i/$OLD_CODE" >/dev/null
fi

# nginx serves the very bytes the service serves.
mkdir -p "$WORK/www/.well-known"
curl -sf "${HOST_ARGS[@]}" "http://127.0.0.1:$SY_PORT/.well-known/apple-app-site-association" > "$WORK/www/.well-known/apple-app-site-association"
chmod -R a+rX "$WORK/www"
cat > "$WORK/nginx.conf" <<NGINX
worker_processes auto;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NG_PORT;
    root $WORK/www;
    location = /.well-known/apple-app-site-association { default_type application/json; }
  }
}
NGINX
"$NGINX" -c "$WORK/nginx.conf" -p "$WORK" 2>/dev/null
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$NG_PORT/.well-known/apple-app-site-association" >/dev/null && break; sleep 0.1; done
NG_WORKERS=$(pgrep -P "$(cat "$WORK/nginx.pid")" | tr '\n' ' ')

# Hummingbird alone, answering the same bytes.
if [[ -n $FLOOR ]]; then
  FLOOR_PORT=$(free_port)
  "$FLOOR" --port "$FLOOR_PORT" --file "$WORK/www/.well-known/apple-app-site-association" 2>"$WORK/floor.log" &
  FLOOR_PID=$!
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$FLOOR_PORT/.well-known/apple-app-site-association" >/dev/null && break; sleep 0.1; done
  wrk -t2 -c"$CONNECTIONS" -d2s "http://127.0.0.1:$FLOOR_PORT/.well-known/apple-app-site-association" >/dev/null
fi

# SwiftNIO alone, answering the same bytes.
if [[ -n $NIO_FLOOR ]]; then
  NIO_PORT=$(free_port)
  "$NIO_FLOOR" --port "$NIO_PORT" --file "$WORK/www/.well-known/apple-app-site-association" 2>"$WORK/nio-floor.log" &
  NIO_PID=$!
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$NIO_PORT/.well-known/apple-app-site-association" >/dev/null && break; sleep 0.1; done
  wrk -t2 -c"$CONNECTIONS" -d2s "http://127.0.0.1:$NIO_PORT/.well-known/apple-app-site-association" >/dev/null
fi

IPHONE='Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148'
DESKTOP='Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
# CPU clock ticks (utime + stime) of the processes PIDS, summed.
ticks() { local t=0 p f; for p in "$@"; do f=$(sed 's/.*) //' "/proc/$p/stat"); set -- $f; t=$((t + ${12} + ${13})); done; echo $t; }
HZ=$(getconf CLK_TCK)
# run "PIDS" URL [extra wrk args] → "rps p50 p99 non-2xx cpu-µs-per-request"
run() {
  local out before after
  before=$(ticks $1)
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "${@:2}" 2>&1)
  after=$(ticks $1)
  python3 - "$out" "$((after - before))" "$HZ" <<'PY'
import re, sys
out, ticks, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def ms(v, unit): return float(v) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
if "Requests/sec:" not in out or "99%" not in out:
    sys.exit("wrk gave no figures:\n" + out)
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
requests = int(re.search(r"(\d+) requests in", out).group(1))
lat = {p: ms(v, u) for p, v, u in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)$", out, re.M)}
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
print(f"{rps:.0f} {lat['50']:.2f} {lat['99']:.2f} {errors.group(1) if errors else 0} {ticks / hz / max(requests, 1) * 1e6:.1f}")
PY
}
echo "warming up…" >&2
wrk -t2 -c"$CONNECTIONS" -d2s "${HOST_ARGS[@]}" "http://127.0.0.1:$SY_PORT/.well-known/apple-app-site-association" >/dev/null
wrk -t2 -c"$CONNECTIONS" -d2s "${HOST_ARGS[@]}" "http://127.0.0.1:$SY_PORT/i/$CODE" >/dev/null
echo "measuring ${DURATION}s each at $CONNECTIONS connections, $ROUNDS rounds…" >&2
RESULTS=$WORK/results.txt; : > "$RESULTS"
for r in $(seq "$ROUNDS"); do
  echo "$r nginx $(run "$NG_WORKERS" "http://127.0.0.1:$NG_PORT/.well-known/apple-app-site-association")" >> "$RESULTS"
  echo "$r aasa $(run "$SY_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$SY_PORT/.well-known/apple-app-site-association")" >> "$RESULTS"
  echo "$r link $(run "$SY_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$SY_PORT/i/$CODE" -H "User-Agent: $DESKTOP")" >> "$RESULTS"
  echo "$r phone $(run "$SY_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$SY_PORT/i/$CODE" -H "User-Agent: $IPHONE")" >> "$RESULTS"
  echo "$r api $(run "$SY_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$SY_PORT/api/links/$CODE" -H "Authorization: Bearer $TOKEN")" >> "$RESULTS"
  echo "$r routed $(run "$SY_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$SY_PORT/.well-known/apple-app-site-association" -H "Connection: x-bench")" >> "$RESULTS"
  if [[ -n $NIO_FLOOR ]]; then
    echo "$r nio $(run "$NIO_PID" "http://127.0.0.1:$NIO_PORT/.well-known/apple-app-site-association")" >> "$RESULTS"
  fi
  if [[ -n $FLOOR ]]; then
    echo "$r floor $(run "$FLOOR_PID" "http://127.0.0.1:$FLOOR_PORT/.well-known/apple-app-site-association" -H "Connection: x-bench")" >> "$RESULTS"
  fi
  if [[ -n $BEFORE ]]; then
    echo "$r old-aasa $(run "$OLD_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$OLD_PORT/.well-known/apple-app-site-association")" >> "$RESULTS"
    echo "$r old-link $(run "$OLD_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$OLD_PORT/i/$OLD_CODE" -H "User-Agent: $DESKTOP")" >> "$RESULTS"
    echo "$r old-phone $(run "$OLD_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$OLD_PORT/i/$OLD_CODE" -H "User-Agent: $IPHONE")" >> "$RESULTS"
    echo "$r old-api $(run "$OLD_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$OLD_PORT/api/links/$OLD_CODE" -H "Authorization: Bearer $OLD_TOKEN")" >> "$RESULTS"
    echo "$r old-routed $(run "$OLD_PID" "${HOST_ARGS[@]}" "http://127.0.0.1:$OLD_PORT/.well-known/apple-app-site-association" -H "Connection: x-bench")" >> "$RESULTS"
  fi
done

python3 - "$RESULTS" <<'PY'
import statistics, sys
rounds = {}
for line in open(sys.argv[1]):
    r, name, rps, p50, p99, err, cpu = line.split()
    rounds.setdefault(int(r), {})[name] = (float(rps), float(p50), float(p99), int(err), float(cpu))
labels = {"nginx": "nginx, AASA file", "aasa": "switchyard, AASA file", "link": "switchyard, /i/{code} desktop (cached)",
          "phone": "switchyard, /i/{code} iPhone (claim page)", "api": "switchyard, GET /api/links/{code} (router)",
          "routed": "switchyard, AASA file via the router"}
for name in list(labels):
    if name != "nginx": labels["old-" + name] = "before: " + labels[name].removeprefix("switchyard, ")
labels["floor"] = "Hummingbird alone, one route, the same bytes"
labels["nio"] = "SwiftNIO alone, one handler, the same bytes"
print(f"{'round':>5}  {'target':44} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8} {'vs nginx':>9} {'CPU µs/req':>11}")
for r in sorted(rounds):
    base = rounds[r]["nginx"][0]
    for name in labels:
        if name not in rounds[r]: continue
        rps, p50, p99, err, cpu = rounds[r][name]
        print(f"{r:5d}  {labels[name]:44} {rps:9.0f} {p50:8.2f} {p99:8.2f} {err:8d} {rps / base:8.2f}x {cpu:11.1f}")
def med(name, f): return statistics.median(f(rounds[r]) for r in rounds)
aasa = [rounds[r]["aasa"][0] / rounds[r]["nginx"][0] for r in rounds]
link = [rounds[r]["link"][0] / rounds[r]["nginx"][0] for r in rounds]
phone = [rounds[r]["phone"][0] / rounds[r]["nginx"][0] for r in rounds]
p99 = max(rounds[r][n][2] for r in rounds for n in ("aasa", "link"))
p99_phone = max(rounds[r]["phone"][2] for r in rounds)
print()
print(f"median ratios over {len(rounds)} rounds: AASA {statistics.median(aasa):.2f}x (range {min(aasa):.2f}-{max(aasa):.2f}, goal >= 0.70x); "
      f"/i/{{code}} {statistics.median(link):.2f}x (range {min(link):.2f}-{max(link):.2f}, goal >= 0.50x); worst p99 {p99:.2f} ms (goal < 10 ms)")
print(f"an iPhone's /i/{{code}} (a page of its own with a deferred claim token, no cache; one address, so past the per-address "
      f"limit it has no token): {statistics.median(phone):.2f}x (range {min(phone):.2f}-{max(phone):.2f}), worst p99 {p99_phone:.2f} ms")
cpu = {name: statistics.median(rounds[r][name][4] for r in rounds) for name in labels if all(name in rounds[r] for r in rounds)}
print("median CPU µs per request: " + ", ".join(f"{name} {value:.1f}" for name, value in cpu.items())
      + f"; AASA {cpu['aasa'] / cpu['nginx']:.2f}x nginx's (goal <= 2x)")
if "floor" in cpu:
    share = [rounds[r]["floor"][4] / rounds[r]["routed"][4] for r in rounds]
    print(f"the router path's floor: Hummingbird alone costs {cpu['floor']:.1f} µs per request, the service's routed AASA "
          f"{cpu['routed']:.1f} µs: the floor is {statistics.median(share):.2f} of it (range {min(share):.2f}-{max(share):.2f})")
if "nio" in cpu:
    def ratio(name): return [rounds[r][name][4] / rounds[r]["nio"][4] for r in rounds]
    aasa_nio, link_nio = ratio("aasa"), ratio("link")
    print(f"the lane's floor: SwiftNIO alone costs {cpu['nio']:.1f} µs per request; the lane's AASA {statistics.median(aasa_nio):.2f}x it "
          f"(range {min(aasa_nio):.2f}-{max(aasa_nio):.2f}, goal <= 1.1x), the desktop /i/{{code}} {statistics.median(link_nio):.2f}x "
          f"(range {min(link_nio):.2f}-{max(link_nio):.2f}, goal <= 1.4x); NIO alone is {cpu['nio'] / cpu['nginx']:.2f}x nginx's CPU")
if all("old-aasa" in rounds[r] for r in rounds):
    print()
    for name, label in (("aasa", "AASA"), ("link", "/i/{code} desktop"), ("phone", "/i/{code} iPhone"),
                        ("api", "GET /api/links/{code}"), ("routed", "AASA via the router")):
        if not all("old-" + name in rounds[r] for r in rounds): continue
        after = [rounds[r][name][0] / rounds[r]["old-" + name][0] for r in rounds]
        before_vs = [rounds[r]["old-" + name][0] / rounds[r]["nginx"][0] for r in rounds]
        now_vs = [rounds[r][name][0] / rounds[r]["nginx"][0] for r in rounds]
        cpu_ratio = [rounds[r]["old-" + name][4] / rounds[r][name][4] for r in rounds]
        print(f"{label}: before {statistics.median(before_vs):.2f}x nginx, after {statistics.median(now_vs):.2f}x nginx; "
              f"after/before {statistics.median(after):.2f} (range {min(after):.2f}-{max(after):.2f}); "
              f"CPU per request {cpu['old-' + name]:.1f} -> {cpu[name]:.1f} µs (before/after {statistics.median(cpu_ratio):.2f}); "
              f"p99 before {max(rounds[r]['old-' + name][2] for r in rounds):.2f} ms, after {max(rounds[r][name][2] for r in rounds):.2f} ms")
PY
