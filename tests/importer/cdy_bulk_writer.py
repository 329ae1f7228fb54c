"""Run with cdy-agent 0.1.5 on PYTHONPATH: cdy-agent's own storage code writes SESSIONS sessions
of TURNS turns each into WORKSPACE (for the kill -9 import test).

Usage: python cdy_bulk_writer.py WORKSPACE SESSIONS TURNS → prints JSON {session id: messages}.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

from cdy_agent.conversation import Message
from cdy_agent.memory.sqlite import ConversationStore


def main(workspace: Path, sessions: int, turns: int) -> dict[str, int]:
    store = ConversationStore(workspace)
    made: dict[str, int] = {}
    for s in range(sessions):
        session = str(uuid.UUID(int=0x52C809C66E554FF19220E4F90A4F0000 + s, version=4))
        for t in range(turns):
            store.append_turn(
                session,
                Message("user", f"Question {t} of session {s}?"),
                Message("assistant", f"Answer {t}."),
            )
        made[session] = 2 * turns
    return made


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))))
