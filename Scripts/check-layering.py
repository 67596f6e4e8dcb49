#!/usr/bin/env python3
"""Checks the package's layering: the app-facing modules (what an iOS/macOS app imports) must not
reach a server stack — no NIO, AsyncHTTPClient, Hummingbird, ServiceLifecycle or database driver —
through any chain of their dependencies. Also: every target has a layer (below) and depends only on
its own layer or lower ones, every folder of Sources/ is a target, and the README's architecture
table names every target.

Reads `swift package describe --type json` (run it from the repository root, or pass its output
file). Every external product an app-facing module reaches must be on the allow-list below; each
violation is printed with the chain that brings it in. Exit status 0 when the layering holds,
1 when it does not, 2 when the description cannot be read.

    python3 Scripts/check-layering.py            # runs swift package describe itself
    python3 Scripts/check-layering.py describe.json
"""
import json
import subprocess
import sys

APP_FACING = ["SwitchyardCore", "SwitchyardDocuments", "LinkRouting", "AssociatedDomains", "URLRelay", "CallbackURL", "PatternMatching", "UserAgents", "LinkRules", "DeferredLinking"]
# External products an app-facing module may use (Foundation-level libraries with no event loop).
ALLOWED_PRODUCTS = {"Yams", "Crypto", "CoreMetrics"}
# C shims an app-facing module may use on Linux (JavaScriptCore; glibc's posix_spawn additions).
ALLOWED_SYSTEM_TARGETS = {"CJavaScriptCore", "CSpawn"}
# Every target's layer; a target may depend on targets of its own layer or of a lower one.
LAYERS = {
    "SwitchyardCore": 0, "SwitchyardDocuments": 0,
    "LinkRouting": 1, "AssociatedDomains": 1, "URLRelay": 1, "CallbackURL": 1, "PatternMatching": 1, "UserAgents": 1, "LinkRules": 1, "DeferredLinking": 1,
    "CJavaScriptCore": 1, "CSpawn": 0,
    "SwitchyardNetwork": 2, "URLRelayService": 2, "RelayLauncher": 2, "SwitchyardQR": 2, "CQRCode": 2, "CSVG": 2, "SwitchyardGeo": 2, "CMaxMindDB": 2, "ServiceTransport": 2, "LinkImport": 2, "LinkRequests": 2, "LinkCache": 2, "LinkAudience": 2, "LinkWebhooks": 2,
    "LinkStorage": 2, "LinkPages": 2, "LinkConfiguration": 2, "LinkService": 2,
    "switchyard": 3,
    "SwitchyardTestSupport": 4,
}
LAYER_NAMES = ["core", "app-facing", "adapter", "executable", "test support"]
README_TABLE = "README.md"


def load(argv):
    if len(argv) > 1:
        with open(argv[1]) as f:
            return json.load(f)
    out = subprocess.run(["swift", "package", "describe", "--type", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        sys.exit(2)
    return json.loads(out.stdout)


def main(argv):
    try:
        description = load(argv)
    except (OSError, ValueError) as error:
        print(f"error: cannot read the package description: {error}", file=sys.stderr)
        return 2
    targets = {t["name"]: t for t in description["targets"]}
    problems = []
    for root in APP_FACING:
        if root not in targets:
            problems.append(f"{root}: no such target (update Scripts/check-layering.py)")
            continue
        # Walk every chain of target dependencies from the root.
        seen = {root: [root]}
        stack = [root]
        while stack:
            name = stack.pop()
            target = targets[name]
            chain = seen[name]
            for product in target.get("product_dependencies", []):
                if product not in ALLOWED_PRODUCTS:
                    problems.append(f"{root} reaches product {product} via {' -> '.join(chain)}")
            for dependency in target.get("target_dependencies", []):
                if dependency in seen:
                    continue
                seen[dependency] = chain + [dependency]
                if dependency not in targets:
                    continue
                kind = targets[dependency].get("type")
                if dependency in ALLOWED_SYSTEM_TARGETS:
                    continue
                if dependency not in APP_FACING and kind != "system-target":
                    problems.append(f"{root} depends on the non-app-facing target {dependency} via {' -> '.join(seen[dependency])}")
                stack.append(dependency)
    problems += check_layers(targets)
    if problems:
        for p in problems:
            print(f"layering: {p}")
        print(f"layering: {len(problems)} violation(s); app-facing modules: {', '.join(APP_FACING)}")
        return 1
    print(f"layering: ok — {', '.join(APP_FACING)} reach only {', '.join(sorted(ALLOWED_PRODUCTS))} and {', '.join(sorted(ALLOWED_SYSTEM_TARGETS))}")
    return 0


def check_layers(targets):
    """Layers of every target, the folders of Sources/, and the README's architecture table."""
    import os
    problems = []
    for name, target in targets.items():
        if target.get("type") == "test":
            continue
        if name not in LAYERS:
            problems.append(f"{name}: no layer (add it to LAYERS in Scripts/check-layering.py and to the README's architecture table)")
            continue
        for dependency in target.get("target_dependencies", []):
            if LAYERS.get(dependency, 99) > LAYERS[name]:
                problems.append(f"{name} ({LAYER_NAMES[LAYERS[name]]}) depends on {dependency} "
                                f"({LAYER_NAMES[LAYERS.get(dependency, 4)] if dependency in LAYERS else 'no layer'})")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folders = {f for f in os.listdir(os.path.join(root, "Sources")) if os.path.isdir(os.path.join(root, "Sources", f))}
    for folder in sorted(folders - set(targets)):
        problems.append(f"Sources/{folder}: a folder that is no target")
    try:
        readme = open(os.path.join(root, README_TABLE), encoding="utf-8").read()
    except OSError as error:
        return problems + [f"{README_TABLE}: {error.strerror}"]
    for name, target in targets.items():
        if target.get("type") != "test" and name != "SwitchyardTestSupport" and f"| `{name}` |" not in readme:
            problems.append(f"{name}: not in the architecture table of {README_TABLE} (a row \"| `{name}` | its job |\")")
    return problems


if __name__ == "__main__":
    sys.exit(main(sys.argv))
