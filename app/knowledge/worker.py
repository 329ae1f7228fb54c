"""The worker process of an index run (app/knowledge/pool.py): reads files, hands back rows.

Protocol over its standard streams: the app writes pickled lists of `Job`s to its stdin, it
answers each with one frame on stdout — an 8-byte big-endian length, then the pickled list of
outcomes — in order, and exits when stdin closes. (The length lets the app's side read a whole
frame off the pipe on a thread without unpickling there.) Both ends are this app's own code in
a process it started, so pickle is safe here.
Started as `python -m app.knowledge.worker` from source and as `CashCode --kb-worker` from a
frozen build (its entry points check the flag first: app/cli/main.py, app/desktop/__main__.py).
"""

from __future__ import annotations

import pickle
import sys

from app.knowledge.prepare import read_jobs

FLAG = "--kb-worker"


def main() -> int:
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries frames only; a stray print must not corrupt one
    while True:
        try:
            jobs = pickle.load(source)
        except EOFError:
            return 0
        frame = pickle.dumps(read_jobs(jobs), protocol=pickle.HIGHEST_PROTOCOL)
        sink.write(len(frame).to_bytes(8, "big"))
        sink.write(frame)
        sink.flush()


if __name__ == "__main__":
    raise SystemExit(main())
