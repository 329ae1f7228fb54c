"""Files of an index run read in worker processes, results handed back in order.

Why processes: reading, chunking and tokenising is Python work that holds the GIL, and so does
most of a batch write (binding every row). A writer *thread* beside the tokeniser made a run
slower than doing both in turn (the two threads queue for the GIL at every row; bench README,
"Knowledge, third pass"). Worker processes do the Python work on the other cores while the
app's process writes: the two overlap for real.

Small runs (a watcher's batch, a few files) stay in-process: starting a worker (a fresh
interpreter importing the chunker and tokeniser) costs more than it saves. The workers are
plain child processes speaking app/knowledge/worker.py's protocol, not `multiprocessing`
(whose `spawn` re-imports the host's main script and needs its own hooks in a frozen build).
If a worker cannot be started or dies, the rest of the run is read in-process, so indexing
never depends on one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from app.knowledge.prepare import Job, Outcome, read_job
from app.knowledge.worker import FLAG

_log = logging.getLogger(__name__)

# A worker's task: this many files, or fewer that add up to GROUP_BYTES (one round trip each).
GROUP_FILES = 16
GROUP_BYTES = 1 << 20
# Runs with fewer files than this are read in-process.
MIN_FILES = 64


def default_workers() -> int:
    """One worker per spare core (the app's process writes on its own core), at most two: the
    write is the slower side beyond that."""
    return max(0, min(2, (os.cpu_count() or 1) - 1))


def worker_argv() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, FLAG]
    return [sys.executable, "-m", "app.knowledge.worker"]


def outcomes(
    jobs: Sequence[Job], sizes: Sequence[int], *, workers: int, min_files: int | None = None
) -> Iterator[Outcome]:
    """Each job's outcome, in the order of `jobs` (`sizes`: the files' sizes, for grouping)."""
    if workers < 1 or len(jobs) < max(1, MIN_FILES if min_files is None else min_files):
        yield from map(read_job, jobs)
        return
    groups = _groups(jobs, sizes)
    started: list[_Worker] = []
    complete = False
    try:
        for _ in range(min(workers, len(groups))):
            started.append(_Worker(groups[len(started) :: workers]))
    except OSError as exc:
        _log.warning("knowledge: no worker process (%s); reading in this process", exc)
    try:
        for n, group in enumerate(groups):
            results = started[n % len(started)].next_result() if started else None
            if results is None or len(results) != len(group):
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
    answers into a small queue as they come (so it can work ahead while the run writes; a
    pipe alone holds ~64 KiB, less than one answer); the run takes them in order."""

    AHEAD = 4  # answers a worker may have ready (each up to ~2 x GROUP_BYTES)

    def __init__(self, groups: list[list[Job]]) -> None:
        root = str(Path(__file__).resolve().parents[2])  # where `app` is, from source
        paths = [root, os.environ.get("PYTHONPATH")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
        self._proc = subprocess.Popen(
            worker_argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._frames: queue.Queue[bytes | None] = queue.Queue(self.AHEAD)
        self._threads = [
            threading.Thread(target=_feed, args=(self._proc.stdin, groups), name="kb-feed", daemon=True),
            threading.Thread(
                target=_drain, args=(self._proc.stdout, self._frames), name="kb-read", daemon=True
            ),
        ]
        for thread in self._threads:
            thread.start()

    def next_result(self) -> list[Outcome] | None:
        """The next group's outcomes; None when the worker ended without them."""
        frame = self._frames.get()
        if frame is None:
            self._frames.put(None)  # it stays ended
            return None
        try:
            results: list[Outcome] = pickle.loads(frame)
        except (pickle.UnpicklingError, EOFError, ValueError):
            return None
        return results

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
                    self._frames.get_nowait()
                thread.join(timeout=0.05)
                if not thread.is_alive():
                    break


def _drain(source: IO[bytes], frames: queue.Queue[bytes | None]) -> None:
    try:
        while len(head := source.read(8)) == 8:
            frame = source.read(int.from_bytes(head, "big"))
            frames.put(frame)
    except (OSError, ValueError):
        pass
    finally:
        frames.put(None)
        source.close()


def _feed(sink: IO[bytes], groups: list[list[Job]]) -> None:
    try:
        for group in groups:
            pickle.dump(group, sink, protocol=pickle.HIGHEST_PROTOCOL)
            sink.flush()
    except OSError:
        pass  # the worker is gone; the run notices when its results stop
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
