#!/usr/bin/env python3
"""Runs the console examples of the README and the guides, and compares what they print.

    python3 Scripts/check-examples.py [--binary PATH] [--list] [FILE.md ...]

Without files: README.md, docs/*.md and the DocC articles (Sources/*/*.docc/*.md).

Every ```console block is read as `$ command` lines, each followed by the output it shows. The
commands of one file run in one bash session, in order, in a scratch copy of the repository's
layout (its folders linked, `../shared` beside it, HOME a fresh directory), with the binary's
directory first on PATH. What they print (stdout and stderr together) is compared line by line:

- `…` inside a line stands for any text; a line that is only `…` for any number of lines;
- generated values are matched by shape: a word of six or more letters and digits that mixes
  both (or mixes cases), such as a link code, a token, a UUID or an event id, matches any word of
  the same length and characters, and is remembered: the same word later, in an output or in a
  command, stands for the value this run produced; numbers of nine or more digits (Unix times)
  and ISO 8601 timestamps and dates match any of their shape;
- paths: the scratch directory is shown as /home/me/switchyard and HOME as /home/me.

`switchyard serve …` and `switchyard relay watch …` run in the background: their output is
compared once it has as many lines as the example shows (or after a timeout); a watcher is then
stopped, a server keeps running until the file is done. A block after the comment
`<!-- example: not run — REASON -->` is skipped and listed with its reason.

Exit status 0 when every example printed what it shows, 1 when one did not, 2 on a usage error.
"""
import argparse
import glob
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SHOWN_WORK = "/home/me/switchyard"
SHOWN_HOME = "/home/me"
SKIP = re.compile(r"^\s*<!--\s*example:\s*not run\s*[—-]+\s*(.*?)\s*-->\s*$")
BACKGROUND = re.compile(r"^(?:swift run )?switchyard (serve|relay watch)\b")
# A word; the two hex digits after a % belong to the escape, not to the word after it.
WORD = re.compile(r"(?<!%)(?<!%[0-9A-Fa-f])[A-Za-z0-9_-]+")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")
DATE = re.compile(r"\d{4}-\d\d-\d\d")
COMMAND_TIMEOUT = 120


class Example:
    def __init__(self, path, line, command, expected):
        self.path, self.line, self.command, self.expected = path, line, command, expected


def read_examples(path):
    """The examples of a Markdown file, and the blocks skipped with their reasons."""
    lines = open(path, encoding="utf-8").read().split("\n")
    examples, skipped = [], []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            reason = SKIP.search(before)
            if reason:
                skipped.append((start, reason.group(1)))
            else:
                examples += parse_block(path, start, lines[start:j])
            i = j + 1
            continue
        i += 1
    return examples, skipped


def parse_block(path, first_line, block):
    examples = []
    indent = min((len(l) - len(l.lstrip()) for l in block if l.strip()), default=0)
    block = [l[indent:] for l in block]
    k = 0
    while k < len(block):
        line = block[k]
        if not line.startswith("$ "):
            raise SystemExit(f"{path}:{first_line + k}: a console block must start with a `$ ` command line")
        start = k
        command = line[2:]
        while command.endswith("\\") and k + 1 < len(block):
            k += 1
            command = command[:-1] + " " + block[k].strip()
        k += 1
        expected = []
        while k < len(block) and not block[k].startswith("$ "):
            expected.append(block[k])
            k += 1
        while expected and expected[-1] == "":
            expected.pop()
        examples.append(Example(path, first_line + start + 1, command, expected))
    return examples


def volatile(word):
    if len(word) >= 9 and word.isdigit():
        return True
    if len(word) < 6:
        return False
    has_digit = any(c.isdigit() for c in word)
    has_alpha = any(c.isalpha() for c in word)
    mixed_case = sum(c.isupper() for c in word) >= 2 and any(c.islower() for c in word)
    return (has_digit and has_alpha) or mixed_case


def word_pattern(word):
    if word.isdigit():
        return r"\d{%d}" % len(word)
    return r"[A-Za-z0-9_-]{%d}" % len(word)


def line_regex(expected, bindings):
    """A regex for one expected line, and the volatile words it captures (in group order)."""
    parts, words, pos = [], [], 0
    tokens = []
    for m in TIMESTAMP.finditer(expected):
        tokens.append((m.start(), m.end(), "time"))
    for m in DATE.finditer(expected):
        if not any(s <= m.start() < e for s, e, _ in tokens):
            tokens.append((m.start(), m.end(), "date"))
    for m in WORD.finditer(expected):
        if any(s <= m.start() < e for s, e, _ in tokens):
            continue
        if volatile(m.group(0)):
            tokens.append((m.start(), m.end(), "word"))
    tokens.sort()
    for start, end, kind in tokens:
        parts.append(literal(expected[pos:start]))
        text = expected[start:end]
        if kind == "time":
            parts.append(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")
        elif kind == "date":
            parts.append(r"\d{4}-\d\d-\d\d")
        elif text in bindings:
            parts.append(re.escape(bindings[text]))
        else:
            # Boundaries keep a code from matching part of a longer word.
            parts.append(r"(?:(?<=%%[0-9A-Fa-f]{2})|(?<![A-Za-z0-9_-]))(%s)(?![A-Za-z0-9_-])" % word_pattern(text))
            words.append(text)
        pos = end
    parts.append(literal(expected[pos:]))
    return re.compile("".join(parts) + r"\Z"), words


def literal(text):
    return ".*?".join(re.escape(piece) for piece in text.split("…"))


def match_lines(expected, actual, bindings):
    """New bindings when `actual` matches `expected`, else None."""
    def go(i, j, found):
        if i == len(expected):
            return found if j == len(actual) else None
        if expected[i].strip() == "…":
            for skip in range(j, len(actual) + 1):
                result = go(i + 1, skip, found)
                if result is not None:
                    return result
            return None
        if j == len(actual):
            return None
        regex, words = line_regex(expected[i].rstrip(), {**bindings, **found})
        m = regex.match(actual[j])
        if not m:
            return None
        more = dict(found)
        for word, value in zip(words, m.groups()):
            if word in more and more[word] != value:
                return None
            more[word] = value
        return go(i + 1, j + 1, more)
    return go(0, 0, {})


def substitute(command, bindings):
    def replace(m):
        return bindings.get(m.group(0), m.group(0))
    return WORD.sub(replace, command)


def serve_port(command):
    """The port a `switchyard serve` command listens on, or None for any other command."""
    if not re.match(r"^(?:swift run )?switchyard serve\b", command):
        return None
    port = re.search(r"--port[= ](\d+)", command)
    return int(port.group(1)) if port else 8080


def port_open(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


class Session:
    """One bash for one file: commands share variables, the working directory and servers."""

    def __init__(self, scratch, binary):
        self.scratch = scratch
        self.work = os.path.join(scratch, "switchyard")
        self.home = os.path.join(scratch, "home")
        os.makedirs(self.work)
        os.makedirs(self.home)
        for name in os.listdir(ROOT):
            if name.startswith(".") or name in ("switchyard",):
                continue
            os.symlink(os.path.join(ROOT, name), os.path.join(self.work, name))
        shared = os.path.join(os.path.dirname(ROOT), "shared")
        if os.path.isdir(shared):
            os.symlink(shared, os.path.join(scratch, "shared"))
        env = {
            "PATH": os.path.dirname(os.path.abspath(binary)) + os.pathsep + os.environ.get("PATH", ""),
            "HOME": self.home,
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "COLUMNS": "100",
        }
        self.bash = subprocess.Popen(["bash", "--noprofile", "--norc"], cwd=self.work, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.buffer = b""
        self.background = []
        self.counter = 0

    def run(self, command, timeout=COMMAND_TIMEOUT):
        """Runs a command in the session; returns its output lines and exit status."""
        self.counter += 1
        marker = f"__check_examples_{self.counter}__"
        # `(exit $__status)` gives the command the previous command's $?, as in a terminal.
        script = f"(exit ${{__status:-0}}); {command}\n__status=$?; printf '\\n{marker} %d\\n' $__status\n"
        self.bash.stdin.write(script.encode())
        self.bash.stdin.flush()
        deadline = time.monotonic() + timeout
        pattern = re.compile(rb"\n" + marker.encode() + rb" (\d+)\n")
        while True:
            m = pattern.search(self.buffer)
            if m:
                out, self.buffer = self.buffer[:m.start()], self.buffer[m.end():]
                lines = out.decode("utf-8", "replace").split("\n") if out else []
                if lines and lines[-1] == "":
                    lines.pop()
                return lines, int(m.group(1))
            left = deadline - time.monotonic()
            if left <= 0:
                return None, None
            ready, _, _ = select.select([self.bash.stdout], [], [], left)
            if ready:
                chunk = os.read(self.bash.stdout.fileno(), 65536)
                if not chunk:
                    return None, None
                self.buffer += chunk

    def start(self, command, enough, timeout=30):
        """Starts a long-running command; returns its output lines once `enough(lines)` holds
        (or at the timeout)."""
        log = os.path.join(self.scratch, f"background-{len(self.background)}.log")
        # The command on a line of its own, so a trailing `# comment` ends with the line.
        out, _ = self.run(f"(\n{command}\n) > {log} 2>&1 & echo $!")
        pid = int(out[-1])
        self.background.append(pid)
        deadline = time.monotonic() + timeout
        lines = []
        while time.monotonic() < deadline:
            try:
                with open(log, encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
            except FileNotFoundError:
                lines = []
            if lines and lines[-1] == "":
                lines.pop()
            if enough(self.shown(lines)):
                break
            time.sleep(0.1)
        if serve_port(command) is not None:
            self.wait_for_port(command, pid, deadline)
        return pid, lines

    @staticmethod
    def wait_for_port(command, pid, deadline):
        """Waits until `serve` accepts connections on its port, or has stopped."""
        port = serve_port(command)
        while time.monotonic() < deadline and not port_open(port):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)

    def stop(self, pid):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            for _ in range(50):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    return
                time.sleep(0.1)

    def close(self):
        for pid in self.background:
            # The subshell's child is the server: end the whole subshell's children too.
            subprocess.run(["pkill", "-TERM", "-P", str(pid)], check=False)
            self.stop(pid)
        try:
            self.bash.stdin.close()
            self.bash.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            # A command still running (one that did not finish in time): end everything it started.
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.bash.pid, sig)
                except ProcessLookupError:
                    break
                time.sleep(1)
            self.bash.wait()

    def shown(self, lines):
        return [l.replace(self.work, SHOWN_WORK).replace(self.home, SHOWN_HOME) for l in lines]


def check_file(path, shown_path, binary, report):
    examples, skipped = read_examples(path)
    relative = shown_path
    failures = 0
    scratch = tempfile.mkdtemp(prefix="check-examples-")
    session = Session(scratch, binary)
    bindings = {}
    try:
        passed = 0
        ports = set()
        shared_missing = not os.path.isdir(os.path.join(os.path.dirname(ROOT), "shared", "fixtures"))
        for example in examples:
            command = substitute(example.command, bindings)
            if "../shared/" in command and shared_missing and not os.environ.get("SWITCHYARD_REQUIRE_TOOLS"):
                skipped.append((example.line, "uses ../shared/fixtures, which is not beside the repository"))
                continue
            port = serve_port(command)
            if port is not None and port not in ports:
                # The first server of this file on that port: something else must not hold it.
                # (A later `serve` on it is an example that expects serve to refuse.)
                ports.add(port)
                if port_open(port):
                    failures += 1
                    report(f"{relative}:{example.line}: port {port} is in use already, so `{example.command}` cannot be tried; stop what listens there")
                    break
            background = BACKGROUND.match(command)
            if background:
                command = re.sub(r"&(\s*#.*)?$", "", command.rstrip()).rstrip()
                wanted = len([l for l in example.expected if l.strip() != "…"])
                if BACKGROUND.match(command).group(1) == "serve":
                    pid, actual = session.start(command, lambda lines: len(lines) >= wanted)
                else:
                    # A watcher: until what it printed is what the example shows.
                    pid, actual = session.start(command, lambda lines: match_lines(example.expected, [l.rstrip() for l in lines], bindings) is not None)
                if command.startswith(("switchyard relay watch", "swift run switchyard relay watch")):
                    time.sleep(0.3)
                    subprocess.run(["pkill", "-TERM", "-P", str(pid)], check=False)
                    session.stop(pid)
                    with open(os.path.join(scratch, f"background-{len(session.background) - 1}.log"), encoding="utf-8", errors="replace") as f:
                        actual = [l for l in f.read().split("\n")]
                    while actual and actual[-1] == "":
                        actual.pop()
                status = 0
            else:
                actual, status = session.run(command)
                if actual is None:
                    failures += 1
                    report(f"{relative}:{example.line}: `{example.command}` did not finish within {COMMAND_TIMEOUT} s")
                    break
                while actual and actual[-1] == "":
                    actual.pop()
            actual = [line.rstrip() for line in session.shown(actual)]
            found = match_lines(example.expected, actual, bindings)
            if found is None:
                failures += 1
                report(f"{relative}:{example.line}: `{example.command}` (exit {status}) printed:")
                for line in actual[:40]:
                    report(f"    | {line}")
                if len(actual) > 40:
                    report(f"    | … {len(actual) - 40} more lines")
                report("  where the example shows:")
                for line in example.expected[:40]:
                    report(f"    | {line}")
            else:
                bindings.update(found)
                passed += 1
    finally:
        session.close()
        shutil.rmtree(scratch, ignore_errors=True)
    summary = f"{relative}: {len(examples)} commands, {passed} passed"
    if failures:
        summary += f", {failures} failed"
    if passed + failures < len(examples):
        summary += f", {len(examples) - passed - failures} not run"
    for line, reason in skipped:
        summary += f"\n  {relative}:{line}: block not run — {reason}"
    return failures, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "switchyard"))
    parser.add_argument("--list", action="store_true", help="list the examples without running them")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or ([os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
                           + sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "*.docc", "*.md"))))
    if not args.list and not os.access(args.binary, os.X_OK):
        print(f"check-examples: no switchyard binary at {args.binary} (swift build -c release --product switchyard)", file=sys.stderr)
        return 2
    total_failures = total_commands = total_skipped = 0
    for path in files:
        if not os.path.isfile(path):
            print(f"check-examples: {path}: no such file", file=sys.stderr)
            return 2
        if args.list:
            examples, skipped = read_examples(path)
            for e in examples:
                print(f"{os.path.relpath(path, ROOT)}:{e.line}: $ {e.command}")
            for line, reason in skipped:
                print(f"{os.path.relpath(path, ROOT)}:{line}: not run — {reason}")
            continue
        shown = path if args.files else os.path.relpath(path, ROOT)
        failures, summary = check_file(os.path.abspath(path), shown, args.binary, lambda text: print(text, flush=True))
        print(summary, flush=True)
        total_failures += failures
        total_commands += int(summary.split(": ", 1)[1].split(" ", 1)[0])
        total_skipped += summary.count("\n")
    if not args.list:
        verdict = f"{total_failures} failed" if total_failures else "all passed"
        print(f"check-examples: {total_commands} commands in {len(files)} files, {verdict}; {total_skipped} blocks or commands not run")
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())
