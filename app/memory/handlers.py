"""Route handlers of the memory capability (types in api_routes.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict

from app.contracts import replies as m
from app.contracts.agents import DEFAULT_AGENT_ID
from app.contracts.capability import Handler
from app.contracts.errors import ApiFailure, said, say
from app.core.prompt import MAX_SOUL_CHARS
from app.memory import api_models as a
from app.memory.dream import DreamOutcome
from app.memory.explicit import MemoryRecord
from app.memory.lines import SourcedLine
from app.memory.memory_file import MemoryFileError, MemoryText
from app.memory.proposals import ProposedLine, proposed_lines
from app.memory.provenance import Tombstone
from app.memory.service import MemoryBook, MemoryServices
from app.memory.soul import SoulText
from app.memory.summaries import ChatSummaryRecord
from app.settings.user_settings import UserSettings


def memory_item(r: MemoryRecord) -> a.MemoryItem:
    return a.MemoryItem(
        id=r.id,
        content=r.content,
        tags=list(r.tags),
        created_at=r.created_at,
        updated_at=r.updated_at,
        asked_by=r.asked_by,
    )


def sourced_item(s: SourcedLine) -> a.SourcedLineItem:
    return a.SourcedLineItem(
        line=s.line,
        sources=[
            a.LineSourceItem(
                author=x.author,
                chat_id=x.chat_id,
                cursors=list(x.cursors),
                version_id=x.version_id,
                created_at=x.created_at,
            )
            for x in s.sources
        ],
    )


def _proposed_line(x: ProposedLine) -> a.ProposedLineItem:
    return a.ProposedLineItem(
        line=x.line,
        sources=[
            a.ProposalSourceItem(
                chat_id=s.chat_id,
                chat_title=s.chat_title,
                cursors=list(s.cursors),
                message=s.message,
                created_at=s.created_at,
            )
            for s in x.sources
        ],
    )


def forgotten_item(t: Tombstone) -> a.ForgottenItem:
    return a.ForgottenItem(id=t.id, line=t.line, version_id=t.version_id, created_at=t.created_at)


def _summary_item(s: ChatSummaryRecord) -> a.SummaryItem:
    return a.SummaryItem(
        id=s.id,
        chat_id=s.chat_id,
        content=s.content,
        keep_from_cursor=s.keep_from_cursor,
        created_at=s.created_at,
    )


def dream_result(o: DreamOutcome) -> a.DreamResult:
    return a.DreamResult(
        status=o.status,
        message=o.message,
        chats=list(o.chats),
        version_id=o.version_id,
        proposal_id=o.proposal_id,
        diff=o.diff,
    )


def _settings_view(s: UserSettings) -> a.MemorySettings:
    return a.MemorySettings(
        consolidation_chars=s.memory_consolidation_chars,
        dream_enabled=s.dream_enabled,
        dream_interval_minutes=s.dream_interval_minutes,
        dream_review=s.dream_review,
    )


def _soul(s: SoulText) -> a.SoulDoc:
    return a.SoulDoc(text=s.text, is_default=s.is_default, max_chars=MAX_SOUL_CHARS, notice=s.notice)


class MemoryHandlers:
    def __init__(self, svc: MemoryServices) -> None:
        self._s = svc

    def table(self) -> Mapping[str, Handler]:
        return {
            "memories.add": self.memories_add,
            "memories.list": self.memories_list,
            "memories.get": self.memories_get,
            "memories.search": self.memories_search,
            "memories.update": self.memories_update,
            "memories.delete": self.memories_delete,
            "memory.get": self.memory_get,
            "memory.save": self.memory_save,
            "memory.versions": self.memory_versions,
            "memory.version": self.memory_version,
            "memory.revert": self.memory_revert,
            "memory.why": self.memory_why,
            "memory.forget": self.memory_forget,
            "memory.forgotten": self.memory_forgotten,
            "memory.unforget": self.memory_unforget,
            "memory.summaries": self.memory_summaries,
            "memory.import_summary": self.import_summary,
            "memory.settings": self.settings_get,
            "memory.settings_update": self.settings_update,
            "dream.run": self.dream_run,
            "dream.proposals": self.dream_proposals,
            "dream.accept": self.dream_accept,
            "dream.reject": self.dream_reject,
            "soul.get": self.soul_get,
            "soul.save": self.soul_save,
            "notes.create": self.notes_create,
            "notes.list": self.notes_list,
            "notes.get": self.notes_get,
            "notes.delete": self.notes_delete,
            "todos.create": self.todos_create,
            "todos.list": self.todos_list,
            "todos.complete": self.todos_complete,
            "todos.delete": self.todos_delete,
        }

    def _book(self, agent_id: str | None) -> MemoryBook:
        """The memory a request names: the shared one, or an existing agent's own (issue 38)."""
        if agent_id is None or agent_id == DEFAULT_AGENT_ID:
            return self._s.shared
        directory = self._s.directory()
        if directory is None or not directory.has_agent(agent_id):
            raise ApiFailure("not_found", say("agent.not_found", id=agent_id[:64]))
        return self._s.book(agent_id)

    # ---- explicit memories -----------------------------------------------------------------

    async def memories_add(self, req: a.MemoriesAdd) -> a.MemoryItem:
        return memory_item(
            self._book(req.agent_id).memories.add(
                req.content, req.tags, memory_id=req.id, asked_by=req.asked_by.strip()
            )
        )

    async def memories_list(self, req: a.MemoriesList) -> a.MemoryItems:
        book = self._book(req.agent_id)
        return self._items(book, book.memories.list(limit=req.limit + 1), req.limit)

    async def memories_get(self, req: a.MemoryRef) -> a.MemoryItem:
        return memory_item(self._book(req.agent_id).memories.get(req.id))

    async def memories_search(self, req: a.MemoriesSearch) -> a.MemoryItems:
        book = self._book(req.agent_id)
        return self._items(book, book.memories.search(req.words, req.tags, limit=req.limit + 1), req.limit)

    def _items(self, book: MemoryBook, found: list[MemoryRecord], limit: int) -> a.MemoryItems:
        # One row more than asked says whether there are more, without counting every match.
        shown = [memory_item(r) for r in found[:limit]]
        return a.MemoryItems(memories=shown, more=len(found) > limit, total=book.memories.count())

    async def memories_update(self, req: a.MemoriesUpdate) -> a.MemoryItem:
        record = self._book(req.agent_id).memories.update(
            req.id, req.content, req.tags, expected_updated_at=req.expected_updated_at
        )
        return memory_item(record)

    async def memories_delete(self, req: a.MemoriesDelete) -> a.MemoryItem:
        book = self._book(req.agent_id)
        return memory_item(book.memories.delete(req.id, expected_updated_at=req.expected_updated_at))

    # ---- MEMORY.md --------------------------------------------------------------------------

    @staticmethod
    def _doc(book: MemoryBook, t: MemoryText) -> a.MemoryDoc:
        return a.MemoryDoc(text=t.text, hash=t.sha256, version_id=t.version_id, path=str(book.memory.path))

    async def memory_get(self, req: a.MemoryOwner) -> a.MemoryDoc:
        book = self._book(req.agent_id)
        try:
            return self._doc(book, book.memory.read())
        except MemoryFileError as exc:
            raise ApiFailure("invalid", said(exc)) from exc

    async def memory_save(self, req: a.MemorySave) -> a.MemoryDoc:
        book = self._book(req.agent_id)
        return self._doc(
            book, book.memory.write(req.text, "user", "edited in CashCode", base_sha256=req.base_hash)
        )

    async def memory_versions(self, req: a.MemoryOwner) -> a.MemoryVersionList:
        items = [
            a.MemoryVersionItem(
                id=v.id, author=v.author, note=v.note, created_at=v.created_at, diff=v.diff, chars=v.chars
            )
            for v in self._book(req.agent_id).memory.versions()
        ]
        return a.MemoryVersionList(versions=items)

    async def memory_version(self, req: a.MemoryVersionRef) -> a.MemoryVersionText:
        text = self._book(req.agent_id).memory.version_text(req.version_id)
        return a.MemoryVersionText(id=req.version_id, text=text)

    async def memory_revert(self, req: a.MemoryVersionRef) -> a.MemoryDoc:
        book = self._book(req.agent_id)
        doc = book.memory.revert(req.version_id)
        book.lines.after_revert(doc)
        return self._doc(book, doc)

    async def memory_why(self, req: a.LineText) -> a.MemoryWhy:
        return a.MemoryWhy(lines=[sourced_item(s) for s in self._book(req.agent_id).lines.why(req.text)])

    async def memory_forget(self, req: a.LineText) -> a.ForgetResult:
        done = self._book(req.agent_id).lines.forget(req.text)
        return a.ForgetResult(forgotten=done.lines, version_id=done.version_id)

    async def memory_forgotten(self, req: a.MemoryOwner) -> a.ForgottenList:
        entries = self._book(req.agent_id).tombstones.entries()
        return a.ForgottenList(forgotten=[forgotten_item(t) for t in entries])

    async def memory_unforget(self, req: a.ForgottenRef) -> a.ForgottenItem:
        return forgotten_item(self._book(req.agent_id).lines.unforget(req.id))

    # ---- consolidation ----------------------------------------------------------------------

    async def memory_summaries(self, req: a.SummariesQuery) -> a.SummaryList:
        self._s.chats.get(req.chat_id)  # not_found for an unknown chat
        latest = self._s.summaries.latest(req.chat_id)
        return a.SummaryList(
            latest=_summary_item(latest) if latest else None,
            count=self._s.summaries.count(req.chat_id),
            running=self._s.consolidator.is_running(req.chat_id),
        )

    async def import_summary(self, req: a.ImportSummary) -> a.SummaryItem:
        return _summary_item(self._s.summaries.add(req.chat_id, req.content, req.keep_from_cursor))

    async def settings_get(self, req: m.Empty) -> a.MemorySettings:
        return _settings_view(self._s.settings.load())

    async def settings_update(self, req: a.MemorySettingsPatch) -> a.MemorySettings:
        patch = req.model_dump(exclude_none=True)
        changes = {("memory_" + k if k == "consolidation_chars" else k): v for k, v in patch.items()}
        return _settings_view(self._s.settings.update(lambda s: s.model_copy(update=changes)))

    # ---- Dream ------------------------------------------------------------------------------

    async def dream_run(self, req: a.DreamRun) -> a.DreamResult:
        choice = (req.model.provider_id, req.model.model) if req.model is not None else None
        return dream_result(await self._s.dream.run_once(choice))

    async def dream_proposals(self, req: m.Empty) -> a.DreamProposalList:
        items = [
            a.ProposalItem(
                id=p.id,
                diff=p.diff,
                analysis=p.analysis,
                status=p.status,
                created_at=p.created_at,
                lines=[_proposed_line(x) for x in proposed_lines(p, self._s.provenance)],
            )
            for p in self._s.proposals.list()
        ]
        return a.DreamProposalList(proposals=items)

    async def dream_accept(self, req: a.DreamProposalRef) -> a.MemoryDoc:
        return self._doc(self._s.shared, self._s.proposals.accept(req.id, self._s.memory))

    async def dream_reject(self, req: a.DreamProposalRef) -> m.Ok:
        self._s.proposals.reject(req.id)
        return m.Ok()

    # ---- SOUL.md ----------------------------------------------------------------------------

    async def soul_get(self, req: m.Empty) -> a.SoulDoc:
        return _soul(self._s.soul.read())

    async def soul_save(self, req: a.SoulSave) -> a.SoulDoc:
        return _soul(self._s.soul.save(req.text))

    # ---- notes and todos --------------------------------------------------------------------

    async def notes_create(self, req: a.NoteCreate) -> a.NoteItem:
        return a.NoteItem(**asdict(self._s.notes.create_note(req.title, req.content)))

    async def notes_list(self, req: m.Empty) -> a.NoteList:
        return a.NoteList(notes=[a.NoteItem(**asdict(n)) for n in self._s.notes.list_notes()])

    async def notes_get(self, req: a.ItemRef) -> a.NoteItem:
        return a.NoteItem(**asdict(self._s.notes.get_note(req.id)))

    async def notes_delete(self, req: a.ItemRef) -> m.Ok:
        self._s.notes.delete_note(req.id)
        return m.Ok()

    async def todos_create(self, req: a.TodoCreate) -> a.TodoItem:
        return a.TodoItem(**asdict(self._s.notes.create_todo(req.title)))

    async def todos_list(self, req: m.Empty) -> a.TodoList:
        return a.TodoList(todos=[a.TodoItem(**asdict(t)) for t in self._s.notes.list_todos()])

    async def todos_complete(self, req: a.ItemRef) -> a.TodoItem:
        return a.TodoItem(**asdict(self._s.notes.complete_todo(req.id)))

    async def todos_delete(self, req: a.ItemRef) -> m.Ok:
        self._s.notes.delete_todo(req.id)
        return m.Ok()
