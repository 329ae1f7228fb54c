"""The worker process of an index run (app/knowledge/pool.py): reads files, hands back rows.

Protocol over its standard streams, one JSON document per line (JSON never holds a raw line
break): the app writes a list of jobs per line to its stdin, it answers each with one line on
stdout, in order, and exits when stdin closes. JSON, not pickle: the app never unpickles
(decision 171), and a line is read off the pipe whole on a thread without being parsed there.
Started isolated (`python -I`, app/support/child_python.py) from source and as `CashCode
--kb-worker` from a frozen build (its entry points check the flag first: app/cli/main.py,
app/desktop/__main__.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from app.knowledge.prepare import Failed, FileState, Job, Outcome, Prepared, Row, Unchanged, read_jobs

FLAG = "--kb-worker"


def encode_jobs(jobs: Sequence[Job]) -> bytes:
    return _line([[j.path, j.mtime_ns, _state(j.known) if j.known else None, j.cap] for j in jobs])


def decode_jobs(line: bytes) -> list[Job]:
    return [Job(str(p), int(m), _from_state(k) if k else None, int(c)) for p, m, k, c in json.loads(line)]


def encode_outcomes(outcomes: Sequence[Outcome]) -> bytes:
    out: list[list[Any]] = []
    for o in outcomes:
        if isinstance(o, Prepared):
            out.append(["p", o.path, _state(o.state), o.rows, o.chars])
        elif isinstance(o, Unchanged):
            out.append(["u", o.path, _state(o.state)])
        else:
            out.append(["f", o.path, o.reason])
    return _line(out)


def decode_outcomes(line: bytes) -> list[Outcome]:
    """The answer to one group; ValueError when the line is not one (a broken worker)."""
    out: list[Outcome] = []
    try:
        for item in json.loads(line):
            kind = item[0]
            if kind == "p":
                rows: tuple[Row, ...] = tuple(
                    (int(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in item[3]
                )
                out.append(Prepared(str(item[1]), _from_state(item[2]), rows, int(item[4])))
            elif kind == "u":
                out.append(Unchanged(str(item[1]), _from_state(item[2])))
            elif kind == "f":
                out.append(Failed(str(item[1]), str(item[2])))
            else:
                raise ValueError(f"unknown outcome {kind!r}")
    except (TypeError, IndexError, KeyError) as exc:
        raise ValueError(f"not an answer of the index worker: {exc}") from exc
    return out


def _state(s: FileState) -> list[Any]:
    return [s.size, s.mtime_ns, s.sha256]


def _from_state(v: Any) -> FileState:
    return FileState(int(v[0]), int(v[1]), str(v[2]))


def _line(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def main() -> int:
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries answers only; a stray print must not corrupt one
    for line in source:
        sink.write(encode_outcomes(read_jobs(decode_jobs(line))))
        sink.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
