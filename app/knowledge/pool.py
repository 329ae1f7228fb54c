"""Files of an index run read in worker processes, results handed back in order.

Why processes: reading, chunking and tokenising is Python work that holds the GIL, and so does
most of a batch write (binding every row). A writer *thread* beside the tokeniser made a run
slower than doing both in turn (the two threads queue for the GIL at every row; bench README,
"Knowledge, third pass"). Worker processes do the Python work on the other cores while the
app's process writes: the two overlap for real.

Small runs (a watcher's batch, a few files) stay in-process: starting a worker (a fresh
interpreter importing the chunker and tokeniser) costs more than it saves. The workers are
plain child processes speaking app/knowledge/worker.py's protocol (JSON lines), not
`multiprocessing` (whose `spawn` re-imports the host's main script and needs its own hooks in a
frozen build).
If a worker cannot be started or dies, the rest of the run is read in-process, so indexing
never depends on one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import subprocess
import threading
from collections.abc import Iterator, Sequence
from typing import IO

from app.knowledge.prepare import Job, Outcome, read_job
from app.knowledge.worker import FLAG, decode_outcomes, encode_jobs
from app.support import child_python

_log = logging.getLogger(__name__)

# A worker's task: this many files, or fewer that add up to GROUP_BYTES (one round trip each).
GROUP_FILES = 16
GROUP_BYTES = 1 << 20
# Runs with fewer files than this are read in-process.
MIN_FILES = 64


def default_workers() -> int:
    """Two workers from two cores on, none on one. The workers' side (read, chunk, tokenise,
    encode) costs ~1.5x the app's (decode, write), so on two cores two workers sharing them
    with the app beat one (237 MB corpus: 8.1 vs 6.6 MB/s, decision 263); beyond two, the
    app's write is the slower side."""
    return 2 if (os.cpu_count() or 1) >= 2 else 0


def worker_argv() -> list[str]:
    """Isolated from the current folder and the user's environment: indexing a cloned repo
    holding `json.py` must not run it (issue 33.1, app/support/child_python.py)."""
    return child_python.module_argv("app.knowledge.worker", frozen_flag=FLAG)


def outcomes(jobs: Sequence[Job], sizes: Sequence[int], *, workers: int) -> Iterator[Outcome]:
    """Each job's outcome, in the order of `jobs` (`sizes`: the files' sizes, for grouping)."""
    if workers < 1 or len(jobs) < max(1, MIN_FILES):
        yield from map(read_job, jobs)
        return
    groups = _groups(jobs, sizes)
    started: list[_Worker] = []
    complete = False
    count = min(workers, len(groups))
    try:
        for k in range(count):
            started.append(_Worker(groups[k::count]))  # group n goes to worker n % count
    except OSError as exc:
        _log.warning("knowledge: no worker process (%s); reading in this process", exc)
        for worker in started:
            worker.close(False)
        started = []
    try:
        for n, group in enumerate(groups):
            results = started[n % count].next_result() if started else None
            if results is None or [r.path for r in results] != [j.path for j in group]:
                if started:
                    _log.warning("knowledge: a worker process stopped; reading the rest in this process")
                for left in groups[n:]:
                    yield from map(read_job, left)
                break
            yield from results
        complete = True
    finally:
        for worker in started:
            worker.close(complete)


class _Worker:
    """One child process. A thread feeds it its share of the groups and another drains its
    answer lines into a small queue as they come (so it can work ahead while the run writes;
    a pipe alone holds ~64 KiB, less than one answer); the run takes them in order."""

    AHEAD = 4  # answers a worker may have ready (each up to ~2 x GROUP_BYTES)

    def __init__(self, groups: list[list[Job]]) -> None:
        self._proc = subprocess.Popen(
            worker_argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._lines: queue.Queue[bytes | None] = queue.Queue(self.AHEAD)
        self._threads = [
            threading.Thread(target=_feed, args=(self._proc.stdin, groups), name="kb-feed", daemon=True),
            threading.Thread(
                target=_drain, args=(self._proc.stdout, self._lines), name="kb-read", daemon=True
            ),
        ]
        for thread in self._threads:
            thread.start()

    def next_result(self) -> list[Outcome] | None:
        """The next group's outcomes; None when the worker ended without them."""
        line = self._lines.get()
        if line is None:
            self._lines.put(None)  # it stays ended
            return None
        try:
            return decode_outcomes(line)
        except ValueError:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
            return None

    def close(self, complete: bool) -> None:
        """`complete`: every result was read (stdin is closed after the last group: the worker
        exits by itself); otherwise the run stopped early (a failed write) and it is killed."""
        if not complete:
            self._proc.kill()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for thread in self._threads:
            for _ in range(50):  # a drain thread blocked on a full queue: make room until it ends
                with contextlib.suppress(queue.Empty):
                    self._lines.get_nowait()
                thread.join(timeout=0.05)
                if not thread.is_alive():
                    break


def _drain(source: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    try:
        for line in source:
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)
        source.close()


def _feed(sink: IO[bytes], groups: list[list[Job]]) -> None:
    try:
        for group in groups:
            sink.write(encode_jobs(group))
            sink.flush()
    except OSError:
        pass  # the worker is gone; the run notices when its answers stop
    finally:
        with contextlib.suppress(OSError):
            sink.close()


def _groups(jobs: Sequence[Job], sizes: Sequence[int]) -> list[list[Job]]:
    groups: list[list[Job]] = []
    group: list[Job] = []
    total = 0
    for job, size in zip(jobs, sizes, strict=True):
        if group and (len(group) >= GROUP_FILES or total + size > GROUP_BYTES):
            groups.append(group)
            group, total = [], 0
        group.append(job)
        total += size
    if group:
        groups.append(group)
    return groups
