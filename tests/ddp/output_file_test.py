#!/usr/bin/env python3
"""python/topotune/output_file.py under termination signals (stdlib only, no torch).

A child process writes an existing target ("old") with write_file_atomically and sends itself
a signal from inside the write (os.fsync is wrapped to do it, so the moment is the same on
every run: the temp file exists, the rename has not happened). For SIGTERM and SIGHUP, whose
default action ends the process without running any Python, the child must still die by that
signal, leave no temp file and leave the target "old". SIGINT (KeyboardInterrupt) must do the
same with its traceback. A SIGTERM the process ignores stays ignored: the write completes, and
the handler the writer installs is removed again afterwards.
usage: output_file_test.py
"""
import os
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHILD = r"""
import os, signal, sys
from topotune import output_file
target, signame, ignore = sys.argv[1], sys.argv[2], sys.argv[3] == "ignore"
signum = getattr(signal, signame)
if ignore:
    signal.signal(signum, signal.SIG_IGN)
real_fsync = os.fsync
def fsync_then_signal(fd):
    real_fsync(fd)
    os.kill(os.getpid(), signum)
os.fsync = fsync_then_signal
output_file.write_file_atomically(target, "new\n")
print("after: SIGTERM ignored", signal.getsignal(signal.SIGTERM) == signal.SIG_IGN,
      "SIGHUP default", signal.getsignal(signal.SIGHUP) == signal.SIG_DFL)
"""

failures = 0


def check(ok, what):
    global failures
    print(f"{'PASS' if ok else 'FAIL'}: {what}")
    failures += not ok


def run_child(signame, ignore=False):
    """(returncode, stdout, files left in the directory, target's text)."""
    with tempfile.TemporaryDirectory() as d:
        target = os.path.join(d, "profile.json")
        with open(target, "w") as f:
            f.write("old\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        run = subprocess.run([sys.executable, "-c", CHILD, target, signame,
                              "ignore" if ignore else "default"],
                             capture_output=True, text=True, env=env, timeout=60)
        with open(target) as f:
            text = f.read()
        return run.returncode, run.stdout + run.stderr, sorted(os.listdir(d)), text


def main():
    for signame in ("SIGTERM", "SIGHUP"):
        rc, out, left, text = run_child(signame)
        signum = getattr(signal, signame)
        check(rc == -signum, f"{signame} during the write: killed by it (rc {rc}) {out.strip()}")
        check(left == ["profile.json"], f"{signame}: no temp file left ({left})")
        check(text == "old\n", f"{signame}: the target is as it was ({text!r})")
    rc, out, left, text = run_child("SIGINT")
    check(rc != 0 and "KeyboardInterrupt" in out, f"SIGINT: KeyboardInterrupt (rc {rc})")
    check(left == ["profile.json"] and text == "old\n", f"SIGINT: no temp, target old ({left})")
    rc, out, left, text = run_child("SIGTERM", ignore=True)
    check(rc == 0 and text == "new\n" and left == ["profile.json"],
          f"an ignored SIGTERM stays ignored: the write completes (rc {rc}, {text!r}, {left})")
    check("after: SIGTERM ignored True SIGHUP default True" in out,
          f"the writer's handlers are removed after the write: {out.strip()}")
    if failures:
        print(f"{failures} check(s) failed")
        return 1
    print("output_file signals: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
