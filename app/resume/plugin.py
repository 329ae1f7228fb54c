"""The resume capability (issue 35 item 3): declared for the app. It owns the checkpoint
tables; the turn side is in app/core (progress.py), the restart side in app/api/resume.py."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


class ResumeHooks(Capability):
    """Nothing per turn: the checkpoints are written by the chat service's turns."""

    name = "resume"


def _build(host: Host) -> Capability:
    return ResumeHooks()


def _checkpoints_v1(conn: sqlite3.Connection) -> None:
    from app.resume.schema import CHECKPOINTS_V1
    from app.store.migrations import run_script

    run_script(conn, CHECKPOINTS_V1)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="resume",
    build=_build,
    migrations=(_checkpoints_v1,),
)
