"""The agents capability's tables (its schema part, app/agents/plugin.py).

`agents.spec` is the AgentSpec as JSON (the same document an agent package carries).
`agent_chats` says which agent a chat belongs to; a chat without a row belongs to the default
agent, so an upgrade changes nothing for existing chats. `assigned_at` orders "last used"."""

AGENTS_V1 = """
CREATE TABLE agents (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
    spec        TEXT NOT NULL CHECK (json_valid(spec)),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE TABLE agent_chats (
    chat_id      TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    agent_id     TEXT NOT NULL,
    assigned_at  TEXT NOT NULL
);
CREATE INDEX agent_chats_assigned ON agent_chats(assigned_at DESC);
CREATE INDEX agent_chats_agent ON agent_chats(agent_id);
"""

# Step 2 (agent packages): which agents came from a `.cashagent` package, the manifest they were
# installed from (what an update is compared with), and the install's id (`txid`): a staging
# folder whose txid is here was committed and is finished on the next start (kill -9 safety).
AGENTS_V2 = """
CREATE TABLE agent_packages (
    agent_id      TEXT PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
    package_id    TEXT NOT NULL UNIQUE,
    version       INTEGER NOT NULL,
    digest        TEXT NOT NULL,
    manifest      TEXT NOT NULL CHECK (json_valid(manifest)),
    txid          TEXT NOT NULL,
    installed_at  TEXT NOT NULL
);
"""

# Step 3 (the picker's list, issue 38 benchmark): a counter every change of `agents` moves, by any
# process (the CLI next to a running window, a package install), so a cached list is checked by
# reading one row instead of every agent's row.
AGENTS_V3 = """
CREATE TABLE agents_generation (n INTEGER NOT NULL);
INSERT INTO agents_generation (n) VALUES (0);
CREATE TRIGGER agents_generation_insert AFTER INSERT ON agents BEGIN
    UPDATE agents_generation SET n = n + 1;
END;
CREATE TRIGGER agents_generation_update AFTER UPDATE ON agents BEGIN
    UPDATE agents_generation SET n = n + 1;
END;
CREATE TRIGGER agents_generation_delete AFTER DELETE ON agents BEGIN
    UPDATE agents_generation SET n = n + 1;
END;
"""
