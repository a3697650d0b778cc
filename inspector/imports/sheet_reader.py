"""Read a workbook's first sheet in a process of its own, under a memory and CPU limit.

The reader (python-calamine, native code) aborts the whole process when an allocation
fails: run in the web worker, one hostile file would end every request in flight in every
town and reset the in-memory login limits. So `read_first_sheet` runs this module as a
child (`python -I -S sheet_reader.py`, the standard library and python-calamine only, so
it starts in a few tens of milliseconds) that lowers its own RLIMIT_AS and RLIMIT_CPU
before importing the reader, gets the file on stdin and writes the cells as JSON on stdout.
A file that needs more memory or time than the limits kills only the child, and the caller
refuses it."""
from __future__ import annotations

import importlib.util
import json
import math
import os
import resource
import subprocess
import sys
from datetime import date, datetime, time, timedelta

MEMORY_BYTES = 768 * 1024 * 1024
CPU_SECONDS = 20
WALL_SECONDS = 40
# Exit codes of the child, read by the caller.
EXIT_UNREADABLE, EXIT_NO_SHEET, EXIT_MEMORY = 3, 4, 5


class ReadFailed(Exception):
    """The child could not read the sheet: `reason` is one of 'unreadable', 'no sheet',
    'memory', 'time'."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _encode(value):
    """A cell as JSON: dates and times tagged, so they come back as they were."""
    if isinstance(value, datetime):
        return {"dt": value.isoformat()}
    if isinstance(value, date):
        return {"d": value.isoformat()}
    if isinstance(value, time):
        return {"t": value.isoformat()}
    if isinstance(value, timedelta) or (isinstance(value, float) and not math.isfinite(value)):
        return str(value)
    return value


def _decode(value):
    if isinstance(value, dict):
        (tag, text), = value.items()
        return {"dt": datetime.fromisoformat, "d": date.fromisoformat,
                "t": time.fromisoformat}[tag](text)
    return value


def read_first_sheet(data: bytes, nrows: int) -> list[list]:
    """The first sheet's cells, at most `nrows` rows, read by a limited child process;
    ReadFailed when it cannot."""
    spec = importlib.util.find_spec("python_calamine")
    where = os.path.dirname(next(iter(spec.submodule_search_locations)))  # its site-packages
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "RUST_BACKTRACE": "0"}
    try:
        done = subprocess.run([sys.executable, "-I", "-S", __file__, str(nrows), where], input=data,
                              capture_output=True, timeout=WALL_SECONDS, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise ReadFailed("time") from None
    if done.returncode == 0:
        try:
            return [[_decode(v) for v in row] for row in json.loads(done.stdout)]
        except (ValueError, TypeError, KeyError):
            raise ReadFailed("unreadable") from None
    if done.returncode == EXIT_NO_SHEET:
        raise ReadFailed("no sheet")
    if done.returncode == EXIT_UNREADABLE:
        raise ReadFailed("unreadable")
    if done.returncode == -9 or done.returncode == -24:   # SIGKILL / SIGXCPU: the CPU limit
        raise ReadFailed("time")
    raise ReadFailed("memory")   # a failed allocation aborts (SIGABRT) or raises MemoryError


def _child(nrows: int, where: str) -> int:
    """In the child: limit, read stdin, print the cells."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))   # no core file per refused upload
    try:
        import io

        sys.path.insert(0, where)
        from python_calamine import CalamineWorkbook

        book = CalamineWorkbook.from_filelike(io.BytesIO(sys.stdin.buffer.read()))
        if not book.sheet_names:
            return EXIT_NO_SHEET
        cells = book.get_sheet_by_index(0).to_python(skip_empty_area=False, nrows=nrows)
        sys.stdout.buffer.write(json.dumps([[_encode(v) for v in row] for row in cells],
                                           ensure_ascii=False, default=str).encode())
        return 0
    except MemoryError:
        return EXIT_MEMORY
    except Exception:   # the reader's own errors: the file is not what it says
        return EXIT_UNREADABLE


if __name__ == "__main__":
    sys.exit(_child(int(sys.argv[1]), sys.argv[2]))
