"""The `traces` table (a migration in app/store/migrations.py runs this).

One row per turn; `tool_calls` is a JSON list of {name, duration_ms, outcome, approval}. `day`
(the UTC day of `started_at`) and the covering index `traces_usage` let the Usage view
aggregate 100,000 turns by walking one index in order, without sorting. No
foreign key to chats: like `usage`, traces stay countable after a chat is deleted.
"""

TRACES_V1 = """
CREATE TABLE traces (
    id             TEXT PRIMARY KEY,
    chat_id        TEXT NOT NULL,
    turn_id        TEXT NOT NULL,
    provider_id    TEXT NOT NULL,
    api_mode       TEXT,
    model          TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('done', 'failed', 'cancelled')),
    error_code     TEXT,
    started_at     TEXT NOT NULL,
    day            TEXT NOT NULL,
    ttft_ms        REAL,
    total_ms       REAL NOT NULL,
    model_calls    INTEGER NOT NULL,
    input_tokens   INTEGER,
    output_tokens  INTEGER,
    cost           REAL,
    tool_calls     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tool_calls))
);
CREATE INDEX traces_started_at ON traces(started_at);
CREATE INDEX traces_chat ON traces(chat_id);
CREATE INDEX traces_usage ON traces(day, provider_id, model, input_tokens, output_tokens, cost);
CREATE INDEX traces_total_ms ON traces(total_ms);
CREATE INDEX traces_cost ON traces(cost);

CREATE TABLE eval_runs (
    id           TEXT PRIMARY KEY,
    file_name    TEXT NOT NULL,
    provider_id  TEXT NOT NULL,
    model        TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
    error        TEXT,
    started_at   TEXT NOT NULL,
    finished_at  TEXT,
    total        INTEGER NOT NULL,
    passed       INTEGER NOT NULL DEFAULT 0,
    results      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(results))
);
CREATE INDEX eval_runs_started_at ON eval_runs(started_at);
"""

# Issue 40: a turn that answered although tool calls failed is `done_with_errors`. SQLite cannot
# change a CHECK in place: the table is rebuilt (rows kept as they are, indexes recreated).
TRACES_V2 = """
CREATE TABLE traces_v2 (
    id             TEXT PRIMARY KEY,
    chat_id        TEXT NOT NULL,
    turn_id        TEXT NOT NULL,
    provider_id    TEXT NOT NULL,
    api_mode       TEXT,
    model          TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('done', 'done_with_errors', 'failed', 'cancelled')),
    error_code     TEXT,
    started_at     TEXT NOT NULL,
    day            TEXT NOT NULL,
    ttft_ms        REAL,
    total_ms       REAL NOT NULL,
    model_calls    INTEGER NOT NULL,
    input_tokens   INTEGER,
    output_tokens  INTEGER,
    cost           REAL,
    tool_calls     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tool_calls))
);
INSERT INTO traces_v2 SELECT id, chat_id, turn_id, provider_id, api_mode, model, status, error_code,
    started_at, day, ttft_ms, total_ms, model_calls, input_tokens, output_tokens, cost, tool_calls
    FROM traces;
DROP TABLE traces;
ALTER TABLE traces_v2 RENAME TO traces;
CREATE INDEX traces_started_at ON traces(started_at);
CREATE INDEX traces_chat ON traces(chat_id);
CREATE INDEX traces_usage ON traces(day, provider_id, model, input_tokens, output_tokens, cost);
CREATE INDEX traces_total_ms ON traces(total_ms);
CREATE INDEX traces_cost ON traces(cost);
"""
