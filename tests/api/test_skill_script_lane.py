"""Skill scripts stay in their lane (issue 22 item 6, issue 23 item 6), driven by the scripted
LLM over real HTTP: only `scripts/…` and files the SKILL.md names run, never `references/` or
`assets/`, only after the Skill was loaded in this chat; resources are read only after a load;
a second load in one turn is not injected again; an "always" grant pins every file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ToolResultEvent
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, ok, send
from tests.api.conftest import add_provider as _add_provider
from tests.api.test_skills_runtime import _approval, _tool, _tool_contents, _write_skill

OK_SCRIPT = "import sys\nprint('RAN', sys.argv[0].rsplit('/', 2)[-2:])\n"
BODY = (
    "# Lane\n\nRun `scripts/ok.py`, then `python eval-viewer/generate_review.py out/`.\n"
    "See references/r.py and assets/a.py for the format; ./docs/ok2.py also runs.\n"
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "userhome"
    h.mkdir()
    return h


@pytest.fixture
def lane(paths: AppPaths) -> Path:
    return _write_skill(
        paths.data_dir / "skills" / "user",
        "lane",
        description="Checks which files of a Skill may run.",
        body=BODY,
        files={
            "scripts/ok.py": OK_SCRIPT,
            "tools.py": OK_SCRIPT,
            "custom/x.py": OK_SCRIPT,
            "references/r.py": OK_SCRIPT,
            "assets/a.py": OK_SCRIPT,
            "eval-viewer/generate_review.py": OK_SCRIPT,
            "docs/ok2.py": OK_SCRIPT,
            "references/guide.md": "GUIDE-MARKER",
        },
    )


def _results(events: Any, turn: str) -> list[ToolResultEvent]:
    return [e for e in events.of(ToolResultEvent) if e.turn_id == turn]


async def test_only_scripts_and_named_files_run_and_only_after_a_load(
    make_app: AppMaker, fake_llm: Any, home: Path, lane: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await _add_provider(app, fake_llm, "chat_completions")
    run = lambda path: _tool("run_skill_script", name="lane", path=path)  # noqa: E731
    fake_llm.script(
        run("scripts/ok.py"),  # 0: not loaded yet
        _tool("skill_read_resource", name="lane", path="references/guide.md"),  # 1: not loaded yet
        _tool("skill_load", name="lane"),  # 2
        _tool("skill_load", name="lane"),  # 3: again in the same turn
        run("tools.py"),  # 4: not under scripts/, not named
        run("custom/x.py"),  # 5
        run("references/r.py"),  # 6: named, but references never run
        run("assets/a.py"),  # 7
        run("SKILL.md"),  # 8
        run("eval-viewer/generate_review.py"),  # 9: named in SKILL.md
        run("docs/ok2.py"),  # 10: named as ./docs/ok2.py
        run("scripts/ok.py"),  # 11
        _tool("skill_read_resource", name="lane", path="references/guide.md"),  # 12
        {"text": "done"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "go", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    results = _results(events, turn)
    assert [r.ok for r in results] == [False, False, True, True] + [False] * 5 + [True] * 4
    assert "Load the Skill first" in results[0].output and "Load the Skill first" in results[1].output
    assert "RAN" not in results[0].output and "GUIDE-MARKER" not in results[1].output
    assert "already loaded in this turn" in results[3].output
    assert "# Lane" not in results[3].output  # the body is not injected twice
    for index in (4, 5):
        assert "neither under scripts/ nor named" in results[index].output
    assert "never run" in results[6].output and "never run" in results[7].output
    assert "not a program" in results[8].output
    assert "RAN" in results[9].output and "generate_review.py" in results[9].output
    assert "RAN" in results[10].output and "RAN" in results[11].output
    assert "GUIDE-MARKER" in results[12].output
    # The model saw the body once.
    last = fake_llm.model_requests()[-1]
    assert sum("Run `scripts/ok.py`" in c for c in _tool_contents(last)) == 1


async def test_a_skill_loaded_in_an_earlier_turn_still_runs_its_scripts(
    make_app: AppMaker, fake_llm: Any, home: Path, lane: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await _add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(_tool("skill_load", name="lane"), {"text": "loaded"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "load it", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    fake_llm.script(_tool("run_skill_script", name="lane", path="scripts/ok.py"), {"text": "ran"})
    turn2 = await send(app, chat["id"], "run it", pid)
    assert (await events.turn_end(turn2)).type == "turn_done"
    assert [r.ok for r in _results(events, turn2)] == [True]
    # Another chat has not loaded it.
    other = await ok(app, "chats.create")
    fake_llm.script(_tool("run_skill_script", name="lane", path="scripts/ok.py"), {"text": "no"})
    turn3 = await send(app, other["id"], "run it", pid)
    assert (await events.turn_end(turn3)).type == "turn_done"
    assert "Load the Skill first" in _results(events, turn3)[0].output


async def test_an_always_grant_pins_every_file_of_the_package(
    make_app: AppMaker, fake_llm: Any, home: Path, paths: AppPaths
) -> None:
    pkg = _write_skill(
        paths.data_dir / "skills" / "user",
        "withhelper",
        description="A script that imports a helper.",
        body="# Helper\n\nRun scripts/main.py.",
        files={
            "scripts/main.py": "import helper\nprint('MAIN', helper.WORD)\n",
            "scripts/helper.py": "WORD = 'good'\n",
        },
    )
    app, events = await make_app(env={"HOME": str(home)})
    pid = await _add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    run = _tool("run_skill_script", name="withhelper", path="scripts/main.py")
    fake_llm.script(_tool("skill_load", name="withhelper"), run, {"text": "ok"})
    turn = await send(app, chat["id"], "run", pid)
    approval = await _approval(events, turn)
    assert "Skill package sha256" in approval.detail
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "always"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert "MAIN good" in _results(events, turn)[-1].output
    assert not (pkg / "scripts" / "__pycache__").exists()  # running does not change the package

    fake_llm.script(run, {"text": "ok"})
    turn2 = await send(app, chat["id"], "again", pid)
    assert (await events.turn_end(turn2)).type == "turn_done"
    assert "approval_required" not in events.types(turn2)
    assert "MAIN good" in _results(events, turn2)[-1].output

    # Only the helper changes: the entry file is the same, yet the grant no longer covers it.
    (pkg / "scripts" / "helper.py").write_text("WORD = 'evil'\n", encoding="utf-8")
    fake_llm.script(run, {"text": "ok"})
    turn3 = await send(app, chat["id"], "changed helper", pid)
    await _approval(events, turn3)
    assert all("MAIN evil" not in r.output for r in _results(events, turn3))
    await ok(app, "chat.cancel", {"chat_id": chat["id"]})


async def test_a_helper_changed_between_approval_and_run_is_refused(
    make_app: AppMaker, fake_llm: Any, home: Path, paths: AppPaths
) -> None:
    pkg = _write_skill(
        paths.data_dir / "skills" / "user",
        "racy",
        description="A script whose helper changes while the user decides.",
        body="# Racy\n\nRun scripts/main.py.",
        files={
            "scripts/main.py": "import helper\nprint('MAIN', helper.WORD)\n",
            "scripts/helper.py": "WORD = 1\n",
        },
    )
    app, events = await make_app(env={"HOME": str(home)})
    pid = await _add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        _tool("skill_load", name="racy"),
        _tool("run_skill_script", name="racy", path="scripts/main.py"),
        {"text": "ok"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "run", pid)
    approval = await _approval(events, turn)
    (pkg / "scripts" / "helper.py").write_text("WORD = 'evil'\n", encoding="utf-8")
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    result = _results(events, turn)[-1]
    assert not result.ok and "changed after the script was approved" in result.output
    assert "MAIN" not in result.output
