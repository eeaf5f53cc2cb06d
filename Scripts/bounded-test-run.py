#!/usr/bin/env python3
"""Runs a Swift Testing command with a watchdog, so that a test which hangs fails the run in
minutes, saying which tests had not finished and where each thread of the test process waited,
instead of holding CI until its own time runs out.

    Scripts/bounded-test-run.py SECONDS -- stdbuf -oL .build/debug/NAMEPackageTests.xctest \
        --testing-library swift-testing --verbose [--filter ...]

The command runs in a process group of its own; its output passes through unchanged. It must
print Swift Testing's verbose events line by line ("◇ Test X started.", "✔ Test X passed after
..."), from which the watchdog keeps the tests started and not yet ended. Past SECONDS it prints
them and the stacks of every thread of the test process (gdb), kills the group and exits with
124. Otherwise it exits with the command's status.
"""

import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import threading

STARTED = re.compile(r"^◇ (.*) started\.$")
ENDED = re.compile(r"^[✔✘] (.*?) (?:passed|failed) after ")
CASE_COUNT = re.compile(r" with \d+ test cases?$")
COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    limit = float(sys.argv[1])
    command = sys.argv[3:]
    running: collections.Counter = collections.Counter()
    lock = threading.Lock()

    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)

    def follow() -> None:
        for raw in process.stdout:
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
            line = COLOUR.sub("", raw.decode("utf-8", "replace").rstrip("\n"))
            with lock:
                if match := STARTED.match(line):
                    running[match.group(1)] += 1
                elif match := ENDED.match(line):
                    running[CASE_COUNT.sub("", match.group(1))] -= 1

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    try:
        status = process.wait(timeout=limit)
        # A process the tests started and left running may hold the output open: not waited for.
        reader.join(timeout=10)
        return status
    except subprocess.TimeoutExpired:
        pass

    print(f"\nbounded-test-run: {' '.join(command)} ran past {limit:.0f} s; the tests started and not ended:", flush=True)
    with lock:
        for name, count in running.items():
            if count > 0 and not name.startswith(("Suite ", "Test run")):
                print(f"  {name}", flush=True)
    for pid in test_processes(process.pid):
        print(f"bounded-test-run: the threads of process {pid}:", flush=True)
        print_backtraces(pid)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return 124


def test_processes(root: int) -> list[int]:
    """`root` and its descendants that run a test bundle (an .xctest executable)."""
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        try:
            if b".xctest" in open(f"/proc/{pid}/cmdline", "rb").read():
                found.append(pid)
            frontier += map(int, open(f"/proc/{pid}/task/{pid}/children").read().split())
        except OSError:
            pass
    return found


def print_backtraces(pid: int) -> None:
    """Every thread's stack, by gdb (make deps installs it), its Swift names demangled."""
    gdb = shutil.which("gdb")
    if gdb is None:
        print("  (no gdb on the PATH: no backtraces)", flush=True)
        return
    try:
        stacks = subprocess.run([gdb, "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt"],
                                capture_output=True, text=True, timeout=300).stdout
    except subprocess.TimeoutExpired:
        print("  (gdb did not finish within 300 s)", flush=True)
        return
    demangle = shutil.which("swift-demangle")
    if demangle is not None:
        stacks = subprocess.run([demangle, "--simplified"], input=stacks, capture_output=True, text=True).stdout
    print(stacks, flush=True)


if __name__ == "__main__":
    sys.exit(main())
