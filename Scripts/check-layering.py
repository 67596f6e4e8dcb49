#!/usr/bin/env python3
"""Checks the package's layering: the app-facing modules (what an iOS/macOS app imports) must not
reach a server stack — no NIO, AsyncHTTPClient, Hummingbird, ServiceLifecycle or database driver —
through any chain of their dependencies.

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

APP_FACING = ["SwitchyardCore", "SwitchyardDocuments", "LinkRouting", "AssociatedDomains", "URLRelay", "CallbackURL", "LinkRules", "DeferredLinking"]
# External products an app-facing module may use (Foundation-level libraries with no event loop).
ALLOWED_PRODUCTS = {"Yams", "Crypto", "CoreMetrics"}
# System-library targets an app-facing module may use (the JavaScriptCore shim on Linux).
ALLOWED_SYSTEM_TARGETS = {"CJavaScriptCore"}


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
                if kind == "system-target" and dependency in ALLOWED_SYSTEM_TARGETS:
                    continue
                if dependency not in APP_FACING and kind != "system-target":
                    problems.append(f"{root} depends on the non-app-facing target {dependency} via {' -> '.join(seen[dependency])}")
                stack.append(dependency)
    if problems:
        for p in problems:
            print(f"layering: {p}")
        print(f"layering: {len(problems)} violation(s); app-facing modules: {', '.join(APP_FACING)}")
        return 1
    print(f"layering: ok — {', '.join(APP_FACING)} reach only {', '.join(sorted(ALLOWED_PRODUCTS))} and {', '.join(sorted(ALLOWED_SYSTEM_TARGETS))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
