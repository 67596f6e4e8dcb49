#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for N executions (default 1,000,000).
#   bash Fuzz/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-1000000}
# A build plan made before a source file was added to the root package misses that file
# ("cannot find 'X' in scope"): the plan is made again each run (seconds).
rm -f .build/release.yaml .build/release/description.json
swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --product FuzzAASA
swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --product FuzzRouter
swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --product FuzzRelay
swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld --product FuzzManifest
BIN=$(swift build -c release --show-bin-path)
mkdir -p corpus/aasa corpus/router corpus/relay corpus/manifest artifacts
# Seeds: the shared AASA corpus (each file, then a URL) and the Plur links.
if [[ -d ../../shared/fixtures/aasa-corpus/apple ]]; then
  for f in ../../shared/fixtures/aasa-corpus/apple/*.json; do
    { cat "$f"; printf '\0https://example.com/buy/1?ref=x#top'; } > "corpus/aasa/$(basename "$f")"
  done
fi
for u in "https://rabble.community/i/ABC" "https://rabble.community/i/plur://join-community?group-id=G&code=C&relay=wss%3A%2F%2Fr" \
         "https://rabble.community/join/G?code=C" "https://www.rabble.community/items/4/a?page=2" "plur://group/G?relay=x" "plur://" \
         "https://rabble.community/users/3f2504e0-4f89-11d3-9a0c-0305e82c3301" "https://rabble.community/files/a/b%2Fc"; do
  printf '%s' "$u" > "corpus/router/$(printf '%s' "$u" | md5sum | cut -c1-12)"
done
# Manifest seeds: small manifests cut from the sample (each action with the apps it names, a
# browser and a redirect rule), and the example with odd entries.
cp ../Examples/quirky-manifest.json corpus/manifest/
python3 - ../../shared/fixtures/opener/openerManifest-v4-sample.json corpus/manifest <<'PY'
import json, sys, os
try: m = json.load(open(sys.argv[1]))
except OSError: sys.exit(0)
apps = {a["identifier"]: a for a in m["apps"]}
redirects = list(m["redirects"].items())
for i, action in enumerate(m["actions"]):
    used = [apps[f["appId"]] for f in action["formats"] if f.get("appId") in apps]
    seed = {"apps": used, "actions": [action], "browsers": [m["browsers"][i % len(m["browsers"])]],
            "redirects": dict([redirects[i % len(redirects)]])}
    text = json.dumps(seed, separators=(",", ":"))
    if len(text) <= 8192: open(os.path.join(sys.argv[2], "sample-%03d.json" % i), "w").write(text)
PY
# Relay seeds: byte 0 even = an inbox record, odd = an x-callback-url.
printf '\0{"v":1,"id":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","time":1790000000.5,"source":"ext","url":"plur://group/a","metadata":{"k":"v"}}' > corpus/relay/record
printf '\1helper://x-callback-url/export?x-source=Plur&x-success=plur%%3A%%2F%%2Fx-callback-url%%2Fok%%3Fa%%3D1&file=a%%20b&x-sy-id=r&x-sy-kid=k1&x-sy-exp=9999999999&x-sy-nonce=n&x-sy-sig=abc' > corpus/relay/callback
"$BIN/FuzzAASA" -runs="$RUNS" -max_len=4096 -artifact_prefix=artifacts/ corpus/aasa 2>&1 | tail -3
"$BIN/FuzzRouter" -runs="$RUNS" -max_len=512 -artifact_prefix=artifacts/ corpus/router 2>&1 | tail -3
"$BIN/FuzzRelay" -runs="$RUNS" -max_len=1024 -artifact_prefix=artifacts/ corpus/relay 2>&1 | tail -3
"$BIN/FuzzManifest" -runs="$RUNS" -max_len=8192 -artifact_prefix=artifacts/ corpus/manifest 2>&1 | tail -3
