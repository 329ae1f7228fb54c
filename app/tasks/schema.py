"""The tasks capability's tables (its schema part, app/tasks/plugin.py). Append steps only."""

TASKS_V1 = """
CREATE TABLE tasks (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
    draft       TEXT NOT NULL,              -- TaskDraft as JSON
    enabled     INTEGER NOT NULL,
    time_zone   TEXT NOT NULL,
    anchor      TEXT NOT NULL,
    next_run    TEXT,                       -- UTC, fixed-width ISO (sorts as text)
    last_slot   TEXT,
    chat_id     TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX tasks_due ON tasks (enabled, next_run);

CREATE TABLE task_runs (
    id               TEXT PRIMARY KEY,
    task_id          TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    status           TEXT NOT NULL,
    trigger          TEXT NOT NULL,
    slot             TEXT,
    started_at       TEXT NOT NULL,
    finished_at      TEXT,
    duration_ms      REAL,
    chat_id          TEXT,
    turn_id          TEXT,
    answer           TEXT,
    error            TEXT,
    refused_tools    TEXT NOT NULL DEFAULT '[]',
    waiting_approval INTEGER NOT NULL DEFAULT 0,
    owner_pid        INTEGER
);
CREATE INDEX task_runs_by_task ON task_runs (task_id, started_at);
-- One run per task at a time, also across processes (a CLI `tasks run` beside `serve`).
CREATE UNIQUE INDEX task_runs_one_running ON task_runs (task_id) WHERE status = 'running';
"""

# Which process owns a run: its start time beside its pid (a pid is reused; issue 33.8).
TASKS_V2 = "ALTER TABLE task_runs ADD COLUMN owner_start TEXT;"
