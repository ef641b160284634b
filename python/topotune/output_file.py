"""Writing a result file with the rules of topotune's C++ writer (core/file_output.h,
docs/output-files.md), for the Python tools (python3 -m topotune.profile --out):

- check_output_path() runs before the work: the parent directory exists and is writable, and
  the target is absent or a regular file that may be written. A symbolic link (also one to a
  regular file, also a dangling one), a directory, a device node, a FIFO or a socket is
  refused, never followed or replaced.
- write_file_atomically() writes the content to a temporary file created with
  O_CREAT|O_EXCL|O_NOFOLLOW under a random name (.NAME.tmp.XXXXXXXXXXXX) in the target's
  directory, so that no planted file or link can redirect it, fsyncs it and renames it over
  the target only when complete (the target is checked again just before). On any failure,
  also KeyboardInterrupt, the temp file is removed and the target is as it was. SIGTERM and
  SIGHUP, whose default action would end the process without running any Python, get a
  handler for the duration of the write (where their disposition is the default and this is
  the main thread, as core/temp_files.h does): it removes the temp file and re-raises the
  signal with its default action, so the process still ends as killed by it.

Refusals and failures raise OutputError with the path and the reason in its message.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import signal
import stat
import threading
from types import FrameType
from typing import Any, Callable, Iterator, Optional, Tuple, Union

__all__ = ["OutputError", "check_output_path", "write_file_atomically"]

# What signal.signal returns and takes: a handler, SIG_DFL/SIG_IGN, or None (not set from Python).
_Handler = Union[Callable[[int, Optional[FrameType]], Any], int, signal.Handlers, None]


class OutputError(Exception):
    """A refused output path or a failed write; str() is a one-line message."""


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _check_target(path: str) -> Optional[os.stat_result]:
    """The target's stat if it is a regular file we may replace, None if it is absent."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise OutputError(f"cannot write '{path}': {e.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise OutputError(f"cannot write '{path}': it is a symbolic link "
                          "(output files are never followed)")
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write '{path}': it is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise OutputError(f"cannot write '{path}': it is {_kind(st.st_mode)}, not a regular "
                          "file (refusing to replace it)")
    if not os.access(path, os.W_OK):
        raise OutputError(f"cannot write '{path}': it is read-only")
    return st


def check_output_path(path: str) -> Optional[os.stat_result]:
    """Checks, before any work, that `path` may be written by write_file_atomically."""
    if not path:
        raise OutputError("the output path is empty")
    existing = _check_target(path)
    parent = os.path.dirname(path) or "."
    try:
        st = os.stat(parent)
    except OSError as e:
        raise OutputError(f"cannot write '{path}': directory '{parent}': {e.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write '{path}': '{parent}' is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write '{path}': directory '{parent}' is not writable")
    return existing


def _create_temp(path: str) -> Tuple[int, str]:
    """(fd, name) of a new temp file next to `path`, created exclusively, never through a link."""
    parent = os.path.dirname(path) or "."
    base = "." + os.path.basename(path)[:200] + ".tmp."
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = os.path.join(parent, base + secrets.token_hex(6))
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
        except OSError as e:
            raise OutputError(f"cannot write '{path}': creating a temporary file: "
                              f"{e.strerror}") from None
    raise OutputError(f"cannot write '{path}': no free temporary file name")


def write_file_atomically(path: str, text: str) -> None:
    """Writes `text` (UTF-8) to `path`: exclusive temp file, fsync, rename; see above."""
    existing = check_output_path(path)
    umask = os.umask(0)
    os.umask(umask)
    mode = stat.S_IMODE(existing.st_mode) if existing else 0o666 & ~umask
    with _temp_removed_on_termination() as register:
        # Held until the name is registered: a signal in between would leave the file.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGHUP})
        try:
            fd, tmp = _create_temp(path)
            register(tmp)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        _write_and_rename(path, text, mode, fd, tmp)


def _write_and_rename(path: str, text: str, mode: int, fd: int, tmp: str) -> None:
    try:
        try:
            data = text.encode()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        _check_target(path)  # it may have changed while we wrote
        os.rename(tmp, path)
    except OSError as e:
        _unlink_quietly(tmp)
        raise OutputError(f"cannot write '{path}': {e.strerror}") from None
    except BaseException:
        _unlink_quietly(tmp)
        raise


@contextlib.contextmanager
def _temp_removed_on_termination() -> Iterator[Callable[[str], None]]:
    """Yields register(tmp); until the block ends, SIGTERM/SIGHUP remove `tmp` and re-raise."""
    temps: list[str] = []

    def on_signal(signum: int, _frame: Optional[FrameType]) -> None:
        for tmp in temps:
            _unlink_quietly(tmp)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    installed: dict[int, _Handler] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            # An ignored or handled signal stays as its owner set it.
            if signal.getsignal(signum) == signal.SIG_DFL:
                installed[signum] = signal.signal(signum, on_signal)
    try:
        yield temps.append
    finally:
        for installed_signum, previous in installed.items():
            signal.signal(installed_signum, previous)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
