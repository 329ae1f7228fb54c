"""Consolidation (SPEC S5.2): fold older messages into a cumulative summary after a turn.

- Runs after `turn_done` as a background task, at most one per chat at a time.
- Triggered when the chat's context (latest summary + messages from its keep_from_cursor)
  exceeds the threshold; the newest ~50% of those characters stay verbatim, and the kept part
  starts at a user message (the question of its exchange stays with its answer and tools).
- The model gets the previous summary plus the messages to fold, and answers with the new
  cumulative summary. Only a non-empty answer is stored, in one transaction that also checks no
  other summary was written meanwhile: a failed, cancelled or empty call changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from app.contracts.messages import Message
from app.contracts.provider import Provider, ProviderError
from app.memory.llm_call import complete, strip_fence
from app.memory.summaries import ChatSummaryRecord, SummaryRepository
from app.memory.transcript import message_chars, render
from app.store.branches import ROOT
from app.store.chats import ChatRepository, StoredMessage
from app.store.errors import Conflict, NotFound

_log = logging.getLogger(__name__)

SUMMARY_SYSTEM = """\
You maintain the running summary of a conversation between a user and an AI assistant, so the
assistant can continue it without the older messages. Write a concise but complete summary that
keeps: the user's goals, decisions and preferences, facts learned, files and commands involved,
results of tool use, open questions and what was about to happen next. The new summary replaces
the previous one, so it must include everything important from the previous summary too.
Answer with the summary text only."""


@dataclass(frozen=True)
class ConsolidationPlan:
    chat_id: str
    previous: ChatSummaryRecord | None  # the newest summary of the active path
    fold: tuple[Message, ...]
    keep_from_cursor: int
    context_chars: int
    partial: bool = False  # the fold was capped at MAX_FOLD_CHARS; more should follow at once
    newest_id: int | None = -1  # the chat's newest summary on any branch when planned (-1: unchecked)


# One summary request folds at most this much (a chat imported with a long history and no
# summary would otherwise exceed the model's context); the rest is folded by the next runs.
MAX_FOLD_CHARS = 200_000
MAX_ROUNDS = 20
HEAD_PAGE = 200  # messages per read when paging a long path forwards


def plan_consolidation(
    chat_id: str,
    previous: ChatSummaryRecord | None,
    tail: Sequence[StoredMessage],
    threshold: int,
    max_fold_chars: int = MAX_FOLD_CHARS,
) -> ConsolidationPlan | None:
    """What to fold, or None when the context is within the threshold or nothing can fold."""
    tail_chars = sum(message_chars(s.message) for s in tail)
    context = tail_chars + (len(previous.content) if previous else 0)
    if context <= threshold or len(tail) < 2:
        return None
    return plan_from_head(chat_id, previous, tail, tail_chars, context, max_fold_chars)


def plan_from_head(
    chat_id: str,
    previous: ChatSummaryRecord | None,
    head: Sequence[StoredMessage],
    tail_chars: int,
    context: int,
    max_fold_chars: int = MAX_FOLD_CHARS,
) -> ConsolidationPlan | None:
    """The plan of a tail over the threshold from its oldest messages only: `head` must reach
    past min(tail_chars / 2, max_fold_chars) characters and then to a user message (or be the
    whole tail). The newest ~50% of the tail stay verbatim."""
    sizes = [message_chars(s.message) for s in head]
    # start: the last message whose older part is at most half the tail (the kept half begins there).
    start, before = len(head), 0
    for i, size in enumerate(sizes):
        if (before + size) * 2 > tail_chars:
            start = i
            break
        before += size
    if start < len(head):
        # The kept part opens with the user message of its exchange (never an answer, tool
        # call or result whose question was folded).
        kept = _user_boundary(head, start)
        if kept is None:
            return None
        if sum(sizes[:kept]) <= max_fold_chars:
            return ConsolidationPlan(
                chat_id=chat_id,
                previous=previous,
                fold=tuple(s.message for s in head[:kept]),
                keep_from_cursor=head[kept].cursor,
                context_chars=context,
            )
    # The fold is capped at max_fold_chars; the rest is folded by the next rounds.
    last = min(start, len(head) - 1)
    end, folded = 0, 0
    while end < last and (end == 0 or folded + sizes[end] <= max_fold_chars):
        folded += sizes[end]
        end += 1
    cut = _user_boundary(head, end)
    if cut is None:
        return None
    return ConsolidationPlan(
        chat_id=chat_id,
        previous=previous,
        fold=tuple(s.message for s in head[:cut]),
        keep_from_cursor=head[cut].cursor,
        context_chars=context,
        partial=True,
    )


def _user_boundary(head: Sequence[StoredMessage], index: int) -> int | None:
    """Where a kept part may begin near `index`: back to the user message that opened its
    exchange, else (the first exchange) forward to the next user message; None when `head`
    has no user message after its first (one exchange: nothing can be folded yet)."""
    back = index
    while back > 0 and head[back].message.role != "user":
        back -= 1
    if back > 0:
        return back
    forward = max(index, 1)
    while forward < len(head) and head[forward].message.role != "user":
        forward += 1
    return forward if forward < len(head) else None


def summary_request(plan: ConsolidationPlan) -> list[Message]:
    previous = plan.previous.content if plan.previous else "(none yet)"
    body = (
        f"Previous summary:\n{previous}\n\n"
        f"Messages to fold into the summary:\n\n{render(plan.fold)}\n\n"
        "Write the new cumulative summary."
    )
    return [Message(role="system", content=SUMMARY_SYSTEM), Message(role="user", content=body)]


class Consolidator:
    def __init__(
        self,
        chats: ChatRepository,
        summaries: SummaryRepository,
        provider_for: Callable[[str], Provider],
        threshold: Callable[[], int],
        max_fold_chars: int = MAX_FOLD_CHARS,
    ) -> None:
        self._max_fold = max_fold_chars
        self._chats = chats
        self._summaries = summaries
        self._provider_for = provider_for
        self._threshold = threshold
        self._running: set[str] = set()

    def is_running(self, chat_id: str) -> bool:
        return chat_id in self._running

    def plan(self, chat_id: str) -> ConsolidationPlan | None:
        """Per branch: the active path's newest summary and the path's messages after it. Reads
        the newest messages up to the threshold (a chat within it, the usual case after a turn,
        reads nothing more); over it, sums the rest inside SQLite and reads only the oldest
        messages the fold needs, so a long unsummarised path is never read whole."""
        newest = self._summaries.newest_id(chat_id)
        leaf = self._chats.leaf(chat_id)
        previous = self._summaries.latest(chat_id, leaf=leaf)
        start = previous.keep_from_cursor if previous else 0
        threshold = self._threshold()
        budget = max(threshold - (len(previous.content) if previous else 0), 0)
        recent = self._chats.path_messages(chat_id, from_cursor=start, leaf=leaf, max_chars=budget)
        oldest_parent = recent[0].parent_cursor if recent else ROOT
        if oldest_parent < start or oldest_parent == ROOT:  # `recent` is the whole tail
            plan = plan_consolidation(chat_id, previous, recent, threshold, self._max_fold)
        else:
            tail_chars = self._chats.path_chars(chat_id, from_cursor=start, leaf=leaf)
            context = tail_chars + (len(previous.content) if previous else 0)
            if context <= threshold:
                return None
            head = self._head(chat_id, leaf, start, min(tail_chars // 2, self._max_fold))
            plan = plan_from_head(chat_id, previous, head, tail_chars, context, self._max_fold)
        return None if plan is None else replace(plan, newest_id=newest)

    def _head(self, chat_id: str, leaf: int, start: int, chars: int) -> list[StoredMessage]:
        """The path's oldest messages from `start` (what `plan_from_head` needs): past `chars`
        characters, then up to and including the next user message (where a kept part may start)."""
        head: list[StoredMessage] = []
        used, after = 0, start - 1
        while True:
            page = self._chats.path_after(chat_id, after=after, leaf=leaf, limit=HEAD_PAGE)
            for s in page:
                head.append(s)
                if used > chars and s.message.role == "user":
                    return head
                used += message_chars(s.message)
            if len(page) < HEAD_PAGE:
                return head
            after = page[-1].cursor

    def claim(self, chat_id: str) -> bool:
        """Mark the chat as consolidating (synchronously, before turn_done); False when a
        consolidation of it is already under way. `run(..., claimed=True)` releases it."""
        if chat_id in self._running:
            return False
        self._running.add(chat_id)
        return True

    async def run(
        self, chat_id: str, provider_id: str, model: str, *, claimed: bool = False
    ) -> ChatSummaryRecord | None:
        """Consolidate when needed; None when not needed, already running, or it failed."""
        if not claimed and not self.claim(chat_id):
            return None
        try:
            latest: ChatSummaryRecord | None = None
            for _ in range(MAX_ROUNDS):
                plan = self.plan(chat_id)
                if plan is None:
                    break
                latest = await self._summarise(plan, provider_id, model)
                if latest is None or not plan.partial:
                    break
            return latest
        except NotFound:
            return None  # the chat was deleted meanwhile
        finally:
            self._running.discard(chat_id)

    async def _summarise(
        self, plan: ConsolidationPlan, provider_id: str, model: str
    ) -> ChatSummaryRecord | None:
        try:
            answer = strip_fence(
                await complete(self._provider_for(provider_id), model, summary_request(plan))
            )
        except ProviderError as exc:
            _log.warning("consolidation of chat %s failed: %s", plan.chat_id, exc.message)
            return None
        if not answer:
            _log.warning(
                "consolidation of chat %s: the model returned an empty summary; nothing changed", plan.chat_id
            )
            return None
        expected = plan.newest_id if plan.newest_id != -1 else (plan.previous.id if plan.previous else None)
        try:
            return self._summaries.add(
                plan.chat_id, answer, plan.keep_from_cursor, expected_previous=expected
            )
        except Conflict:
            return None
