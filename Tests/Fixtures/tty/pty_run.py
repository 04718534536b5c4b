#!/usr/bin/env python3
"""Runs a command with a pseudo-terminal as stdin, stdout and stderr, COLS columns wide; after RESIZE_AFTER seconds
(if > 0) the terminal becomes NEW_COLS wide (the kernel sends SIGWINCH). Prints one JSON object: what the command
wrote before and after the resize, and its exit status.

usage: pty_run.py COLS RESIZE_AFTER NEW_COLS COMMAND [ARGUMENT...]
"""
import fcntl, json, os, pty, select, struct, sys, termios, time

def set_size(fd, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))

def main():
    cols, resize_after, new_cols = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    command = sys.argv[4:]
    pid, fd = pty.fork()
    if pid == 0:
        set_size(0, cols)
        os.execvp(command[0], command)
    set_size(fd, cols)
    started = time.monotonic()
    before, after, resized = b"", b"", False
    while True:
        if resize_after > 0 and not resized and time.monotonic() - started >= resize_after:
            set_size(fd, new_cols)
            resized = True
        ready, _, _ = select.select([fd], [], [], 0.02)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        if resized:
            after += data
        else:
            before += data
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"before": before.decode("utf-8", "replace"), "after": after.decode("utf-8", "replace"),
                      "status": os.waitstatus_to_exitcode(status)}))

main()
