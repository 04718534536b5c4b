#!/usr/bin/env python3
"""Runs COMMAND... as a child subreaper that never reaps orphans (as a container's init or a careless
supervisor may), for RendererSafetyTests: every process orphaned below it becomes its child, and one that ends
stays a zombie. Waits for COMMAND (its own child, reaped), then up to 2 s for a zombie to appear, and prints
{"status": N, "stderr": "...", "zombies": N} as JSON."""
import ctypes, json, os, subprocess, sys, time

PR_SET_CHILD_SUBREAPER = 36


def zombies():
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            found.append(int(name))
    return found


def main():
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(json.dumps({"error": "prctl failed"}))
        return 1
    result = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 2
    while time.time() < deadline and not zombies():
        time.sleep(0.05)
    print(json.dumps({"status": result.returncode, "stderr": result.stderr.decode(errors="replace"),
                      "zombies": len(zombies())}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
