"""What the model reads of a finished process (`exec`, `run_skill_script`), within the output
budget: the exit code first, the tail of stderr whole (up to half the budget), then the head and
the tail of stdout in what is left. Every cut says how much it left out."""

from __future__ import annotations

from app.support.paging import page_chars
from app.tools.process import CapturedStream, ProcessOutcome

STDERR_SHARE = 2  # stderr may take up to 1/STDERR_SHARE of a page


def render_outcome(outcome: ProcessOutcome, *, head: str, budget: int) -> tuple[str, bool]:
    """The content for the model and whether anything was left out."""
    room = page_chars(budget, used=len(head) + 200)
    err_text, err_cut = _tail_only(outcome.stderr, room // STDERR_SHARE, "stderr")
    out_text, out_cut = _head_and_tail(outcome.stdout, room - len(err_text), "stdout")
    parts = [head]
    if out_text:
        parts.append(f"--- stdout ---\n{out_text}")
    if err_text:
        parts.append(f"--- stderr ---\n{err_text}")
    return "\n".join(parts), err_cut or out_cut


def _whole(stream: CapturedStream) -> tuple[str, str, int]:
    """The captured head, the captured tail and how many bytes between them were never kept."""
    head = stream.data.decode("utf-8", errors="replace")
    tail = stream.tail.decode("utf-8", errors="replace")
    return head, tail, stream.total - len(stream.data) - len(stream.tail)


def _tail_only(stream: CapturedStream, limit: int, label: str) -> tuple[str, bool]:
    if stream.total == 0:
        return "", False
    head, tail, lost = _whole(stream)
    text = head + tail if lost == 0 else tail
    if lost == 0 and len(text) <= limit:
        return text, False
    shown = text[-limit:]
    left = stream.total - len(shown.encode("utf-8", "replace"))
    return (
        f"[{label}: the first {max(left, 0)} of {stream.total} bytes are left out; "
        f"the end is shown]\n{shown}",
        True,
    )


def _head_and_tail(stream: CapturedStream, limit: int, label: str) -> tuple[str, bool]:
    if stream.total == 0:
        return "", False
    limit = max(limit, 400)
    head, tail, lost = _whole(stream)
    if lost == 0 and len(head) + len(tail) <= limit:
        return head + tail, False
    keep_tail = limit // 2
    keep_head = limit - keep_tail
    text_head = head[:keep_head]
    joined_tail = (head + tail)[-keep_tail:] if lost == 0 else tail[-keep_tail:]
    kept = len(text_head.encode("utf-8", "replace")) + len(joined_tail.encode("utf-8", "replace"))
    left_out = stream.total - kept
    marker = (
        f"\n[… {label}: about {max(left_out, 0)} bytes left out here ({stream.total} bytes in all; "
        "the beginning and the end are shown)]\n"
    )
    return text_head + marker + joined_tail, True
