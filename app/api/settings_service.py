"""settings.get / settings.update, and the effective workspace folder."""

from __future__ import annotations

import os
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

from app.api import models as m
from app.contracts.errors import ApiFailure, say
from app.settings.user_settings import ApprovalMode, ModelChoice, ModelPrice, SettingsStore, UserSettings

ENV_WORKSPACE = "WORKSPACE_DIR"


class SettingsService:
    def __init__(
        self,
        store: SettingsStore,
        *,
        data_dir: Path,
        env: Mapping[str, str],
        workspace_override: Path | None = None,
        max_iterations_override: int | None = None,
        stream: bool = True,
        approval_mode_override: ApprovalMode | None = None,
    ) -> None:
        self._store = store
        self.store = store  # capabilities get the file itself (app/host/host.py)
        self._data_dir = data_dir
        self._env = env
        self._workspace_override = workspace_override
        self.workspace_override = workspace_override
        self._max_iterations_override = max_iterations_override
        self.stream = stream  # process-wide (the CLI's --no-stream); the UI always streams
        self._approval_mode_override = approval_mode_override  # the CLI's --approval-mode

    def load(self) -> UserSettings:
        return self._store.load()

    def workspace(self, settings: UserSettings | None = None) -> Path:
        """Override (CLI) > env WORKSPACE_DIR > the setting > `<data>/workspace` (created)."""
        if self._workspace_override is not None:
            return self._workspace_override
        s = settings or self._store.load()
        raw = self._env.get(ENV_WORKSPACE) or s.workspace
        if raw:
            return Path(os.path.realpath(Path(raw).expanduser()))
        default = self._data_dir / "workspace"
        default.mkdir(parents=True, exist_ok=True)
        return Path(os.path.realpath(default))

    def max_iterations(self, settings: UserSettings) -> int:
        return self._max_iterations_override or settings.max_iterations

    def approval_mode(self, settings: UserSettings) -> ApprovalMode:
        """The CLI's `--approval-mode` for this process, else the saved setting."""
        return self._approval_mode_override or settings.approval_mode

    def view(self, settings: UserSettings | None = None) -> m.SettingsView:
        s = settings or self._store.load()
        last = (
            m.ModelRef(provider_id=s.last_model.provider_id, model=s.last_model.model)
            if s.last_model
            else None
        )
        return m.SettingsView(
            theme=s.theme,
            language=s.language,
            workspace=str(self.workspace(s)),
            last_model=last,
            approval_mode=s.approval_mode,
            tool_policies=dict(s.tool_policies),
            max_iterations=s.max_iterations,
            allow_private_network=s.allow_private_network,
            exec_env=list(s.exec_env),
            sandbox_hidden=list(s.sandbox_hidden),
            sandbox_readable=list(s.sandbox_readable),
            local_api=s.local_api,
            skill_evolution=s.skill_evolution,
            vision_models={k: list(v) for k, v in s.vision_models.items()},
            model_prices=[
                m.ModelPriceEntry(
                    provider_id=p.provider_id,
                    model=p.model,
                    input_per_million=float(p.input_per_million),
                    output_per_million=float(p.output_per_million),
                )
                for p in s.model_prices
            ],
            close_to_tray=s.close_to_tray,
            quick_ask_hotkey=s.quick_ask_hotkey,
        )

    def update(self, patch: m.SettingsPatch) -> m.SettingsView:
        changes = patch.model_dump(exclude_none=True)
        if "workspace" in changes:
            changes["workspace"] = _checked_workspace(changes["workspace"])
        if patch.model_prices is not None:
            changes["model_prices"] = _prices(patch.model_prices)
        saved = self._store.update(lambda s: s.model_copy(update=changes))
        return self.view(saved)

    def remember_model(self, provider_id: str, model: str) -> None:
        choice = ModelChoice(provider_id=provider_id, model=model)
        if self._store.load().last_model != choice:
            self._store.update(lambda s: s.model_copy(update={"last_model": choice}))


def _prices(entries: list[m.ModelPriceEntry]) -> list[ModelPrice]:
    keys = [(e.provider_id, e.model) for e in entries]
    if len(keys) != len(set(keys)):
        raise ApiFailure("invalid", say("prices.duplicate"))
    # str(): the decimal of what was typed (0.1 stays 0.1), not of the binary float.
    return [
        ModelPrice(
            provider_id=e.provider_id,
            model=e.model,
            input_per_million=Decimal(str(e.input_per_million)),
            output_per_million=Decimal(str(e.output_per_million)),
        )
        for e in entries
    ]


def _checked_workspace(raw: str) -> str:
    path = Path(raw).expanduser()
    if not path.is_absolute():
        raise ApiFailure("invalid", say("workspace.not_absolute", path=raw))
    real = Path(os.path.realpath(path))
    if not real.is_dir():
        raise ApiFailure("invalid", say("workspace.not_folder", path=raw))
    return str(real)
