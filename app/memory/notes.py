"""Notes and todos (SPEC S5.6), stored in SQLite."""

from __future__ import annotations

import builtins
import sqlite3
from dataclasses import dataclass

from app.contracts.errors import say
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.ids import new_id, validate_id
from app.store.timeutil import utc_now_iso

MAX_TITLE = 200
MAX_NOTE = 50_000


@dataclass(frozen=True)
class Note:
    id: str
    title: str
    content: str
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class Todo:
    id: str
    title: str
    done: bool
    created_at: str
    completed_at: str | None


def _title(raw: str) -> str:
    title = " ".join(str(raw).split())
    if not title:
        raise ValueError("a title must not be empty")
    if len(title) > MAX_TITLE:
        raise ValueError(f"a title is limited to {MAX_TITLE} characters")
    return title


class NotesRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- notes ------------------------------------------------------------------------------

    def create_note(self, title: str, content: str) -> Note:
        if len(content) > MAX_NOTE:
            raise ValueError(f"a note is limited to {MAX_NOTE} characters")
        now = utc_now_iso()
        note = Note(new_id(), _title(title), content.strip(), now, now)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO notes (id, title, content, created_at, updated_at) VALUES (?,?,?,?,?)",
                (note.id, note.title, note.content, now, now),
            )
        return note

    def list_notes(self) -> builtins.list[Note]:
        return [_note(r) for r in self._db.query("SELECT * FROM notes ORDER BY updated_at DESC, id")]

    def get_note(self, note_id: str) -> Note:
        nid = validate_id(note_id, "note id")
        rows = self._db.query("SELECT * FROM notes WHERE id = ?", (nid,))
        if not rows:
            raise NotFound(say("memory.note_not_found", id=nid))
        return _note(rows[0])

    def delete_note(self, note_id: str) -> Note:
        note = self.get_note(note_id)
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM notes WHERE id = ?", (note.id,))
        return note

    # ---- todos ------------------------------------------------------------------------------

    def create_todo(self, title: str) -> Todo:
        todo = Todo(new_id(), _title(title), False, utc_now_iso(), None)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO todos (id, title, done, created_at) VALUES (?,?,0,?)",
                (todo.id, todo.title, todo.created_at),
            )
        return todo

    def list_todos(self) -> builtins.list[Todo]:
        return [_todo(r) for r in self._db.query("SELECT * FROM todos ORDER BY done, created_at DESC, id")]

    def get_todo(self, todo_id: str) -> Todo:
        tid = validate_id(todo_id, "todo id")
        rows = self._db.query("SELECT * FROM todos WHERE id = ?", (tid,))
        if not rows:
            raise NotFound(say("memory.todo_not_found", id=tid))
        return _todo(rows[0])

    def complete_todo(self, todo_id: str) -> Todo:
        todo = self.get_todo(todo_id)
        if todo.done:
            raise Conflict(say("memory.todo_done", id=todo.id))
        now = utc_now_iso()
        with self._db.transaction() as conn:
            conn.execute("UPDATE todos SET done = 1, completed_at = ? WHERE id = ?", (now, todo.id))
        return Todo(todo.id, todo.title, True, todo.created_at, now)

    def delete_todo(self, todo_id: str) -> Todo:
        todo = self.get_todo(todo_id)
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM todos WHERE id = ?", (todo.id,))
        return todo


def _note(row: sqlite3.Row) -> Note:
    return Note(row["id"], row["title"], row["content"], row["created_at"], row["updated_at"])


def _todo(row: sqlite3.Row) -> Todo:
    return Todo(row["id"], row["title"], bool(row["done"]), row["created_at"], row["completed_at"])
