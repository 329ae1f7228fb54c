"""The default model of an agent named on the command line (`ask`/`chat --agent NAME`, issue 38).

Read before the CLI builds its app, because the agent's provider decides the CLI's provider
configuration (its key, timeouts and banner), exactly as `--provider` would."""

from __future__ import annotations

from dataclasses import dataclass

from app.settings.paths import AppPaths


@dataclass(frozen=True)
class AgentModel:
    provider_id: str
    model: str


def agent_model(paths: AppPaths, ref: str) -> AgentModel | None:
    """The agent's default provider and model; None when it has none (the app's model applies)
    or no agent has this name (the command reports that when it looks the agent up)."""
    from app.agents.store import AgentStore
    from app.api.plugins import open_database
    from app.store.errors import NotFound

    with open_database(paths.db_path) as db:
        try:
            spec = AgentStore(db).find(ref).spec
        except NotFound:
            return None
    if spec.provider_id is None or spec.model is None:
        return None
    return AgentModel(spec.provider_id, spec.model)
