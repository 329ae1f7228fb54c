"""kill -9 while a consolidation or a Dream run waits for the model: nothing half-written."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.api.plugins import open_database
from app.contracts.messages import Message
from app.memory.dream import DreamCursors
from app.memory.memory_file import MemoryFile
from app.memory.summaries import SummaryRepository
from app.store.chats import ChatRepository
from tests.api.conftest import VALID_KEY

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, sys
from app.contracts.provider import ProviderConfig, ProviderKind
from app.llm.factory import create_provider
from app.api.plugins import open_database
from app.store.chats import ChatRepository
from app.memory.consolidator import Consolidator
from app.memory.summaries import SummaryRepository
from app.memory.dream import Dream, DreamDeps
from app.memory.memory_file import MemoryFile
from app.memory.proposals import ProposalRepository
from app.memory.provenance import Provenance, Tombstones

db_path, data_dir, base_url, key, what = sys.argv[1:6]
db = open_database(db_path)
provider = create_provider(ProviderConfig(id="p", kind=ProviderKind("chat_completions"), base_url=base_url,
                                          api_key=key))
chats = ChatRepository(db)
if what == "consolidate":
    consolidator = Consolidator(chats, SummaryRepository(db), lambda _: provider, lambda: 1000)
    job = consolidator.run(sys.argv[6], "p", "fake-model")
else:
    from pathlib import Path
    deps = DreamDeps(
        db=db, chats=chats, memory=MemoryFile(db, Path(data_dir)), proposals=ProposalRepository(db),
        provider_for=lambda _: provider, model_choice=lambda: ("p", "fake-model"), review_mode=lambda: False,
        provenance=Provenance(db), tombstones=Tombstones(db),
    )
    job = Dream(deps).run_once()
asyncio.run(job)
"""


def _seed(tmp_path: Path) -> tuple[Path, str]:
    db_path = tmp_path / "db.sqlite3"
    with open_database(db_path) as db:
        chats = ChatRepository(db)
        chat = chats.create("long chat").id
        for i in range(4):
            chats.append_turn(
                chat,
                f"t{i}",
                [
                    Message(role="user", content=f"U{i} " + "x" * 400),
                    Message(role="assistant", content=f"A{i} " + "y" * 400),
                ],
            )
    return db_path, chat


async def _kill_when_asked(proc: subprocess.Popen[bytes], fake_llm: Any) -> None:
    asked = await fake_llm.wait_until_async(lambda reqs: len(reqs) >= 1, timeout=30)
    assert asked, proc.stderr.read().decode() if proc.poll() is not None and proc.stderr else "no request"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def _spawn(args: list[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-c", CHILD, *args], env=env, stderr=subprocess.PIPE)


async def test_kill_9_during_consolidation_leaves_the_chat_unconsolidated(
    tmp_path: Path, fake_llm: Any
) -> None:
    db_path, chat = _seed(tmp_path)
    fake_llm.script({"text": "NEVER STORED", "delay_s": 60, "chunk_size": 100})
    proc = _spawn([str(db_path), str(tmp_path), fake_llm.openai_base_url, VALID_KEY, "consolidate", chat])
    await _kill_when_asked(proc, fake_llm)
    assert fake_llm.requests[0].key_valid and not fake_llm.requests[0].completed
    with open_database(db_path) as db:
        assert SummaryRepository(db).latest(chat) is None
        assert len(ChatRepository(db).history(chat)) == 8
        assert db.query("PRAGMA integrity_check")[0][0] == "ok"


async def test_kill_9_during_dream_advances_no_cursor_and_keeps_memory(tmp_path: Path, fake_llm: Any) -> None:
    db_path, chat = _seed(tmp_path)
    with open_database(db_path) as db:
        MemoryFile(db, tmp_path).write("- kept fact", "user")
    fake_llm.script({"text": "analysis"}, {"text": "- NEVER WRITTEN", "delay_s": 60, "chunk_size": 100})
    proc = _spawn([str(db_path), str(tmp_path), fake_llm.openai_base_url, VALID_KEY, "dream"])
    asked = await fake_llm.wait_until_async(lambda reqs: len(reqs) >= 2, timeout=30)
    assert asked
    os.kill(proc.pid, signal.SIGKILL)
    await asyncio.to_thread(proc.wait, 10)
    assert fake_llm.requests[0].completed and not fake_llm.requests[1].completed
    with open_database(db_path) as db:
        assert DreamCursors(db, ChatRepository(db)).get(chat) == 0
        memory = MemoryFile(db, tmp_path)
        assert memory.read().text == "- kept fact\n" and len(memory.versions()) == 1
