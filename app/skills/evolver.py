"""Runs self-evolution for the Skills capability: records evidence after turns, drafts due
proposals in the background (one tool-less model call), approves and rejects them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence

from app.contracts.messages import Message
from app.contracts.provider import ModelRequest, Provider, TextDelta
from app.contracts.turn import TurnSpec
from app.skills.evolution import (
    DEFAULT_THRESHOLD,
    EvolutionRepository,
    Proposal,
    clean_draft,
    evidence_of,
    evolver_messages,
)
from app.skills.redact import Redactor
from app.skills.runtime import SkillRuntime

_log = logging.getLogger(__name__)


class ProposalError(Exception):
    """Approve/reject of a proposal that does not exist or is not pending."""


class SkillEvolver:
    def __init__(
        self,
        repo: EvolutionRepository,
        runtime: SkillRuntime,
        *,
        enabled: Callable[[], bool],
        provider_for: Callable[[str], Provider] | None,
        threshold: int = DEFAULT_THRESHOLD,
    ) -> None:
        self._repo = repo
        self._rt = runtime
        self.enabled = enabled
        self._provider_for = provider_for
        self._threshold = threshold
        self._redact = Redactor(runtime.config.home)
        self._tasks: dict[asyncio.Task[None], str] = {}  # running drafts -> fingerprint

    def after_turn(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        if self._provider_for is None or not self.enabled():
            return
        evidence = evidence_of(messages, self._redact)
        if evidence is None or not self._repo.record(spec.turn_id, evidence, self._threshold):
            return
        task = asyncio.get_running_loop().create_task(
            self._draft(spec.provider_id, spec.model, evidence.fingerprint), name="skill-evolver"
        )
        self._tasks[task] = evidence.fingerprint
        task.add_done_callback(lambda t: self._tasks.pop(t, None))

    async def _draft(self, provider_id: str, model: str, fingerprint: str) -> None:
        from app.skills.validate import parse_skill_md

        tools, requests = self._repo.examples(fingerprint)
        try:
            assert self._provider_for is not None
            provider = self._provider_for(provider_id)
            # Restricted: no tools, only the redacted evidence, one call.
            request = ModelRequest(model=model, messages=evolver_messages(tools, requests), tools=())
            text = ""
            async for event in provider.stream(request):
                if isinstance(event, TextDelta):
                    text += event.text
        except asyncio.CancelledError:
            # The app closed (e.g. a one-shot `cashcode ask`): forget the draft so the next
            # recurrence of this workflow tries again.
            self._repo.forget_draft(fingerprint)
            raise
        except Exception as exc:  # the evolver is best effort: a failure is recorded, not raised
            _log.warning("skill evolver: drafting failed", exc_info=True)
            self._repo.set_draft(fingerprint, "failed", "", "", f"The model call failed: {exc}"[:300])
            return
        content = clean_draft(text)
        parsed = parse_skill_md(content.encode("utf-8"), None)
        if isinstance(parsed, list):
            reason = "; ".join(p.message for p in parsed)[:300]
            self._repo.set_draft(
                fingerprint, "failed", "", content, f"The draft is not a valid Skill: {reason}"
            )
            return
        self._repo.set_draft(fingerprint, "pending", parsed.manifest.name, content, "")

    def list(self) -> list[Proposal]:
        return self._repo.list()

    def approve(self, proposal_id: str) -> Proposal:
        """Re-validate, snapshot an existing agent Skill of that name, publish into the agent
        source. SkillError (invalid, conflict) propagates and leaves the proposal pending."""
        from app.skills.manage_tool import write_files
        from app.skills.validate import parse_skill_md

        proposal = self._pending(proposal_id)
        parsed = parse_skill_md(proposal.content.encode("utf-8"), None)
        if isinstance(parsed, list):
            from app.skills.model import SkillInvalid

            raise SkillInvalid("The proposal is not a valid Skill.", tuple(parsed))
        store = self._rt.services().store
        name = parsed.manifest.name
        entry = store.catalog.refresh().get(name)
        if entry is not None and entry.source == "agent":
            store.update_package(name, "agent", lambda folder: write_files(folder, proposal.content, {}))
        else:
            with store.staging_dir() as work:
                package = work / "package"
                package.mkdir()
                write_files(package, proposal.content, {})
                store.install_folder(package, source="agent")
        self._repo.set_status(proposal_id, "approved")
        return self._repo.get(proposal_id) or proposal

    def reject(self, proposal_id: str) -> Proposal:
        proposal = self._pending(proposal_id)
        self._repo.set_status(proposal_id, "rejected")
        return self._repo.get(proposal_id) or proposal

    def _pending(self, proposal_id: str) -> Proposal:
        proposal = self._repo.get(proposal_id)
        if proposal is None:
            raise ProposalError(f"No proposal {proposal_id[:40]!r}.")
        if proposal.status != "pending":
            raise ProposalError(f"That proposal is {proposal.status}, not pending.")
        return proposal

    async def aclose(self) -> None:
        running = dict(self._tasks)
        for task in running:
            task.cancel()
        for task, fingerprint in running.items():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            # A task cancelled before it started never ran its own clean-up.
            self._repo.forget_draft(fingerprint)
