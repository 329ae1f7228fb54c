"""The resume capability's tables (its schema part, app/resume/plugin.py). Append steps only."""

CHECKPOINTS_V1 = """
CREATE TABLE turn_checkpoints (
    turn_id     TEXT PRIMARY KEY,
    chat_id     TEXT NOT NULL,   -- no foreign key: a lazy chat's row is written with its first turn
    task_id     TEXT,
    body        TEXT NOT NULL,   -- TurnCheckpoint as JSON (app/contracts/checkpoint.py)
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX turn_checkpoints_chat ON turn_checkpoints (chat_id);
CREATE INDEX turn_checkpoints_task ON turn_checkpoints (task_id);

-- The questions a checkpoint waits on, so an answer finds its turn (and a checkpoint whose body
-- no longer reads still names its questions).
CREATE TABLE checkpoint_waits (
    approval_id TEXT PRIMARY KEY,
    turn_id     TEXT NOT NULL REFERENCES turn_checkpoints (turn_id) ON DELETE CASCADE
);
CREATE INDEX checkpoint_waits_turn ON checkpoint_waits (turn_id);
"""
