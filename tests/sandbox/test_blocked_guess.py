"""What a failed confined run seems to have been stopped by (app/tools/confined.py): the
question the user gets names it, and a run that failed for its own reasons asks nothing."""

from __future__ import annotations

import pytest

from app.tools.confined import blocked_by_sandbox
from app.tools.process import CapturedStream, ProcessOutcome


def _outcome(stderr: str, code: int | None = 1, *, timed_out: bool = False) -> ProcessOutcome:
    return ProcessOutcome(
        code, CapturedStream(b"", 0), CapturedStream(stderr.encode(), len(stderr)), timed_out, 1
    )


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        ("PermissionError: [Errno 13] Permission denied: 'report.txt'", "file access outside the workspace"),
        ("touch: cannot touch '/tmp/x': Permission denied", "file access outside the workspace"),
        (
            '  File "/usr/lib/python3.11/socket.py", line 836, in create_connection\n'
            "PermissionError: [Errno 13] Permission denied",
            "network access",
        ),  # fmt: skip
        ("curl: (7) Failed to connect to 127.0.0.1 port 8080: Permission denied", "network access"),
        ("AssertionError: 1 != 2", None),
        ("ImportError: cannot import name 'x'", None),
    ],
)
def test_a_failed_run_is_blamed_on_the_sandbox_only_with_a_permission_error(
    stderr: str, expected: str | None
) -> None:
    assert blocked_by_sandbox(_outcome(stderr)) == expected


def test_a_run_that_succeeded_or_timed_out_is_never_blamed() -> None:
    assert blocked_by_sandbox(_outcome("Permission denied", 0)) is None
    assert blocked_by_sandbox(_outcome("Permission denied", None, timed_out=True)) is None
