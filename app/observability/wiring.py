"""Builds the observability capability from the app's parts (called by app/api/bootstrap.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from app.contracts.capability import Handler
from app.contracts.replies import Empty
from app.observability.capability import Bus, TraceCapability
from app.observability.events import DatabaseProblem
from app.observability.logs import register_secrets
from app.observability.prices import Price, PriceEntry, PriceTable, env_price
from app.observability.store import TraceRepository
from app.settings.config_errors import ConfigError
from app.settings.secrets import SecretStore, provider_key_name
from app.settings.user_settings import SettingsStore
from app.store.db import Database, quick_check

if TYPE_CHECKING:  # the route models load with the first route call (`ask` start-up)
    from app.host.host import Host
    from app.observability import eval_api_models as em
    from app.observability.eval_api_models import EvalModel
    from app.observability.eval_runs import EvalRunner
    from app.observability.evals import EvalApp

_log = logging.getLogger(__name__)


class ObservabilityCapability(TraceCapability):
    """Traces, plus masking the stored provider keys in logs of long-lived surfaces."""

    def __init__(
        self,
        *,
        db: Database,
        bus: Bus,
        env: Mapping[str, str],
        settings: SettingsStore,
        provider_kind: Callable[[str], str | None],
        secrets: SecretStore,
        app: EvalApp | None = None,
    ) -> None:
        self._settings = settings
        self._secrets = secrets
        try:
            self._env_price = env_price(env)
        except ConfigError as exc:
            # The CLI refuses this before building the app; the desktop and serve carry on
            # without the env prices (costs stay unknown) and say why once.
            _log.warning("cost prices from the environment are ignored: %s", exc)
            self._env_price = None
        super().__init__(bus, TraceRepository(db), self._price_table, provider_kind)
        self._db = db
        self._bus = bus
        self._app = app
        self._evals: EvalRunner | None = None
        self._checking: asyncio.Task[None] | None = None  # the start-up integrity check

    @property
    def evals(self) -> EvalRunner:
        """Built on first use: `cashcode ask` never imports the eval runner (start-up cost)."""
        if self._evals is None:
            from app.observability.eval_runs import EvalRunner, EvalRunStore

            self._evals = EvalRunner(EvalRunStore(self._db), self._bus.publish, self._last_model)
            if self._app is not None:
                self._evals.attach(self._app)
        return self._evals

    def _last_model(self) -> EvalModel | None:
        from app.observability.eval_api_models import EvalModel

        last = self._settings.load().last_model
        return EvalModel(provider_id=last.provider_id, model=last.model) if last is not None else None

    def routes(self) -> Mapping[str, Handler]:
        return {
            **super().routes(),
            "evals.run": self.evals_run,
            "evals.runs": self.evals_runs,
            "evals.get": self.evals_get,
        }

    async def evals_run(self, req: em.EvalRunStart) -> em.EvalRunView:
        return self.evals.start(req)

    async def evals_runs(self, req: Empty) -> em.EvalRunList:
        return self.evals.runs()

    async def evals_get(self, req: em.EvalRunRef) -> em.EvalRunView:
        return self.evals.get(req.id)

    async def aclose(self) -> None:
        if self._checking is not None and not self._checking.done():
            self._checking.cancel()  # the thread finishes its read; nothing waits for it
        if self._evals is not None:
            await self._evals.aclose()
        await super().aclose()

    def _price_table(self) -> PriceTable:
        if self._env_price is not None:
            return PriceTable(self._env_price)
        entries = [
            PriceEntry(p.provider_id, p.model, Price(p.input_per_million, p.output_per_million))
            for p in self._settings.load().model_prices
        ]
        return PriceTable(None, entries)

    async def start(self) -> None:
        self.evals.fail_unfinished()
        self._checking = asyncio.get_running_loop().create_task(self._check_database())
        # Only long-lived surfaces start capabilities: the keychain is not touched on `ask`.
        try:
            names = [provider_key_name(p.id) for p in self._settings.load().providers]
            register_secrets(self._secrets.get(name) for name in names)
        except Exception:  # no keychain or a damaged settings file: the patterns still apply
            _log.info("stored provider keys could not be read for log redaction")


    async def _check_database(self) -> None:
        """The whole file is read once per start, off the loop; damage is logged and shown."""
        try:
            problems = await asyncio.to_thread(quick_check, self._db.path)
        except Exception:  # the check itself failing is not the user's problem
            _log.info("the database integrity check could not run", exc_info=True)
            return
        if not problems:
            return
        message = (
            f"The database at {self._db.path} is damaged ({problems[0][:200]}). Your chats may be "
            "incomplete: quit CashCode, keep a copy of the file, and restore a backup or run "
            "`sqlite3 cashcode.sqlite3 .recover` on the copy."
        )
        _log.error("database integrity check failed: %s", "; ".join(p[:200] for p in problems))
        self._bus.publish(DatabaseProblem(message=message, details=[p[:300] for p in problems]))


def observability(host: Host) -> ObservabilityCapability:
    """The capability; the CLI's API key (known now, without the keychain) is masked in logs.
    Evals started from the UI run turns through the app's own routes (`host.app`)."""
    if host.provider_override is not None:
        register_secrets([host.provider_override.api_key])
    return ObservabilityCapability(
        db=host.db,
        bus=Bus(host.publish, host.subscribe),
        env=host.env,
        settings=host.settings,
        provider_kind=host.provider_kind,
        secrets=host.secrets,
        app=host.app,
    )
