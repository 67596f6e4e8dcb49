#!/usr/bin/env python3
"""Counts public declarations with and without a `///` comment, per module.

    python3 Scripts/doc-coverage.py [--min PERCENT] [--list] [MODULE ...]

A declaration is public when its line starts (after attributes) with `public` or `open`; it is
documented when the lines right above it (skipping attributes such as `@discardableResult` and
blank-free `#if` lines) end with a `///` comment or a `/** … */` block. Enum cases written after
`public enum` are not counted (their enum is). Extensions themselves are not declarations.
Exits 1 when a module given (or every module, with none given) is below --min.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
DECL = re.compile(r"^\s*(?:@[\w.()\", :]+\s+)*(?:public|open)\s+(?:(?:static|final|override|class|mutating|nonisolated|convenience|required|indirect|private\(set\)|internal\(set\)|fileprivate\(set\))\s+)*"
                  r"(func|var|let|struct|class|enum|protocol|init|typealias|subscript|actor|case)\b")


def scan(path):
    documented, missing = 0, []
    lines = open(path, encoding="utf-8").read().split("\n")
    for index, line in enumerate(lines):
        if not DECL.match(line) or re.match(r"^\s*(public|open)\s+extension\b", line):
            continue
        j = index - 1
        while j >= 0 and (lines[j].strip().startswith("@") or lines[j].strip().startswith("#if") or lines[j].strip().startswith("#endif")):
            j -= 1
        above = lines[j].strip() if j >= 0 else ""
        if above.startswith("///") or above.endswith("*/"):
            documented += 1
        else:
            missing.append(f"{os.path.relpath(path, os.path.join(ROOT, '..'))}:{index + 1}: {line.strip()[:100]}")
    return documented, missing


def main():
    args = sys.argv[1:]
    minimum, listing = None, False
    if "--min" in args:
        i = args.index("--min")
        minimum = float(args[i + 1])
        del args[i:i + 2]
    if "--list" in args:
        listing = True
        args.remove("--list")
    modules = args or sorted(m for m in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, m)))
    failed = False
    total_documented = total = 0
    for module in modules:
        documented, missing = 0, []
        for directory, _, files in os.walk(os.path.join(ROOT, module)):
            for name in sorted(files):
                if name.endswith(".swift"):
                    d, m = scan(os.path.join(directory, name))
                    documented += d
                    missing += m
        count = documented + len(missing)
        if count == 0:
            continue
        share = 100.0 * documented / count
        total_documented += documented
        total += count
        below = minimum is not None and share < minimum
        failed |= below
        print(f"{module:22} {documented:4}/{count:<4} {share:5.1f}%{'  below ' + str(minimum) + '%' if below else ''}")
        if listing:
            for m in missing:
                print("    " + m)
    if total:
        print(f"{'all':22} {total_documented:4}/{total:<4} {100.0 * total_documented / total:5.1f}%")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
