"""What bench.py and its workload modules share: the timer (Run, Runner, Contender, measure), the
environment knobs and the markdown formatting. Its own module so that workload modules (photos.py, small.py)
import it rather than bench.py, which imports them."""
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v.strip() else default


def env_float(name, default):
    v = os.environ.get(name, "")
    return float(v) if v.strip() else default


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- running


class Run:
    """Outcome of one command execution."""
    __slots__ = ("wall", "cpu", "rss_kb", "tree_rss_kb", "rc", "error")

    def __init__(self, wall=0.0, cpu=0.0, rss_kb=0, rc=0, error=None, tree_rss_kb=None):
        self.wall, self.cpu, self.rss_kb, self.rc, self.error = wall, cpu, rss_kb, rc, error
        self.tree_rss_kb = tree_rss_kb


def stop_group(pid):
    """TERM the process group of pid (a session we started), KILL it after 2 s, reap pid."""
    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            pass
        end = time.time() + grace
        while time.time() < end:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    return
            except ChildProcessError:
                return
            time.sleep(0.05)


def on_signal(signum, frame):
    # The first INT or TERM stops the run; later ones (run.sh's TERM after a Ctrl-C) must
    # not interrupt the clean-up.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def describe_status(rc, timed_out, timeout):
    if timed_out:
        return f"timeout after {timeout:.0f} s"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def session_rss_kb(session):
    """The resident memory of every process in `session`, summed (KB): a command's processes, forked or not."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            # after "(comm)": state, ppid, pgrp, session, ...
            if int(stat[stat.rindex(")") + 2:].split()[3]) != session:
                continue
            with open(f"/proc/{name}/statm") as f:
                total += int(f.read().split()[1]) * PAGE_KB
        except (OSError, ValueError, IndexError):
            continue
    return total


class SessionMemory:
    """Samples the summed resident memory of a session's processes every `interval` seconds; `peak` is the most."""

    def __init__(self, session, interval=0.2):
        self.session, self.interval, self.peak = session, interval, 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self):
        while not self.done.is_set():
            self.peak = max(self.peak, session_rss_kb(self.session))
            self.done.wait(self.interval)

    def stop(self):
        self.done.set()
        self.thread.join()
        return self.peak


class Runner:
    def __init__(self, env, log_dir, timeout):
        self.env, self.log_dir, self.timeout = env, log_dir, timeout
        os.makedirs(log_dir, exist_ok=True)

    def run(self, tag, cmd, cwd=None, session_memory=False):
        """Run cmd (argv list, or a bash string run with pipefail); return a Run. With `session_memory`, the Run's
        tree_rss_kb is the peak of the command's processes' resident memory summed (sampled every 0.2 s; at least the
        largest process's peak)."""
        argv = cmd if isinstance(cmd, list) else ["bash", "-o", "pipefail", "-c", cmd]
        out_path = os.path.join(self.log_dir, f"{tag}.out")
        err_path = os.path.join(self.log_dir, f"{tag}.err")
        timed_out = []
        with open(out_path, "wb") as so, open(err_path, "wb") as se:
            t0 = time.perf_counter()
            try:
                p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                                     env=self.env, cwd=cwd or ROOT, start_new_session=True)
            except OSError as e:
                return Run(rc=127, error=f"cannot run {argv[0]}: {e.strerror}")

            def kill():
                timed_out.append(True)
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            timer = threading.Timer(self.timeout, kill)
            timer.start()
            sampler = SessionMemory(p.pid) if session_memory else None
            try:
                _, status, ru = os.wait4(p.pid, 0)
            except KeyboardInterrupt:
                stop_group(p.pid)
                raise
            finally:
                timer.cancel()
                sampled = sampler.stop() if sampler else None
            t1 = time.perf_counter()
        rc = os.waitstatus_to_exitcode(status)
        p.returncode = rc
        r = Run(t1 - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, rc,
                tree_rss_kb=max(sampled, ru.ru_maxrss) if sampled is not None else None)
        if rc != 0 or timed_out:
            r.error = describe_status(rc, bool(timed_out), self.timeout)
            r.rc = rc if rc != 0 else -9
        return r

    def stderr_tail(self, tag, lines=3):
        try:
            with open(os.path.join(self.log_dir, f"{tag}.err"), errors="replace") as f:
                text = [l.rstrip() for l in f.read().splitlines() if l.strip()]
        except OSError:
            return ""
        return " / ".join(text[-lines:])[:300]


class Contender:
    """One command in a workload.

    prepare() runs untimed before every run; check() runs untimed after a successful run and
    returns None or a complaint; mem_file, if set, is /usr/bin/time's -o file (peak KB); with session_memory,
    tree_rss holds each run's peak of its processes' memory summed."""

    def __init__(self, key, label, cmd, imgfetch=False, prepare=None, check=None,
                 mem_file=None, fail_word="failed", short=None, session_memory=False):
        self.key, self.label, self.cmd, self.imgfetch = key, label, cmd, imgfetch
        self.session_memory, self.tree_rss = session_memory, []
        self.short = short or label.split()[0]
        self.prepare, self.check, self.mem_file, self.fail_word = prepare, check, mem_file, fail_word
        self.walls, self.cpus, self.rss, self.mem = [], [], [], []
        self.failure = None          # e.g. "failed (exit 2)"
        self.detail = ""             # stderr excerpt or check complaint

    @property
    def ok(self):
        return self.failure is None and bool(self.walls)

    def median(self):
        return statistics.median(self.walls) if self.walls else None

    def record(self, run, measured):
        if measured:
            self.walls.append(run.wall)
            self.cpus.append(run.cpu)
            self.rss.append(run.rss_kb)
            if run.tree_rss_kb is not None:
                self.tree_rss.append(run.tree_rss_kb)
            if self.mem_file:
                self.mem.append(read_time_m(self.mem_file))

    def fail(self, what, detail=""):
        self.failure = f"{self.fail_word} ({what})"
        self.detail = detail


def read_time_m(path):
    """Peak RSS in KB from a `/usr/bin/time -f %M -o path` file (last numeric line)."""
    try:
        with open(path) as f:
            nums = [l.strip() for l in f if l.strip().isdigit()]
        return int(nums[-1]) if nums else None
    except OSError:
        return None


def run_contender(runner, c, measured):
    if c.failure:
        return
    if c.prepare:
        c.prepare()
    r = runner.run(c.key, c.cmd, session_memory=c.session_memory)
    if r.error:
        c.fail(r.error, runner.stderr_tail(c.key))
        log(f"  {c.label}: {c.failure} {c.detail}")
        return
    if c.check:
        complaint = c.check()
        if complaint:
            c.failure, c.detail = "bad output", complaint
            log(f"  {c.label}: bad output: {complaint}")
            return
    c.record(r, measured)


def measure(runner, contenders, rounds, warmup=0):
    """Alternate: every round runs each contender once, the first one rotating."""
    k = len(contenders)
    for r in range(-warmup, rounds):
        shift = r % k
        for c in contenders[shift:] + contenders[:shift]:
            run_contender(runner, c, measured=r >= 0)
    return contenders


# --------------------------------------------------------------------------- formatting


def fmt_time(s):
    if s is None:
        return "—"
    if s < 1:
        return f"{s * 1000:.1f} ms"
    if s < 100:
        return f"{s:.2f} s"
    return f"{s:.0f} s"


def fmt_mib(kb):
    return "—" if kb is None else f"{kb / 1024:.0f} MiB"


def fmt_ratio(x):
    return "—" if x is None else f"{x:.2f}"


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def md_code(s):
    return "`" + s.replace("|", "\\|") + "`"


def cell(s):
    """Text for a markdown table cell: pipes escaped."""
    return str(s).replace("|", "\\|")


def rounds_text(n, extra=""):
    return f"{n} round{'s' if n != 1 else ''}{extra}"


FORMAT_NAMES = {"JPG": "JPEG", "PNG": "PNG", "WEBP": "WebP"}


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def spread(c):
    if not c.walls:
        return "—"
    return f"{fmt_time(min(c.walls))} – {fmt_time(max(c.walls))}"


def time_table(contenders, ref):
    """Rows: command, median, spread, CPU, peak RSS, imgfetch ÷ this."""
    rows = ["| Command | Median | Min – max | CPU (user+sys) | Peak RSS | imgfetch ÷ this |",
            "|---|---|---|---|---|---|"]
    for c in contenders:
        if c.failure:
            rows.append(f"| {md_code(c.label)} | {c.failure} | | | | |")
            continue
        r = "—" if c is ref else fmt_ratio(ratio(ref.median() if ref.ok else None, c.median()))
        rows.append(f"| {md_code(c.label)} | {fmt_time(c.median())} | {spread(c)} | "
                    f"{fmt_time(statistics.median(c.cpus))} | "
                    f"{fmt_mib(max(c.rss))} | {r} |")
    return rows
