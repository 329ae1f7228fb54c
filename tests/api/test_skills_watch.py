"""Skill hot reload reaches every surface as a `skills_changed` event (issue 4, item 5)."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.skills.events import SkillsChanged
from tests.api.conftest import AppMaker


def _write_skill(folder: Path, name: str, body: str = "Do the thing.") -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: A test skill.\n---\n\n{body}\n", encoding="utf-8"
    )


async def test_a_skill_copied_into_the_user_root_publishes_skills_changed(
    make_app: AppMaker, tmp_path: Path
) -> None:
    app, events = await make_app(env={"HOME": str(tmp_path / "home-dir")})
    await app.start_background()
    source = tmp_path / "incoming" / "pdf-tools"
    _write_skill(source, "pdf-tools")

    user_root = app.ctx.paths.data_dir / "skills" / "user"
    user_root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, user_root / "pdf-tools")
    await events.until(lambda: bool(events.of(SkillsChanged)), timeout_s=5)
    first = events.of(SkillsChanged)[-1].revision

    shutil.rmtree(user_root / "pdf-tools")
    await events.until(lambda: events.of(SkillsChanged)[-1].revision > first, timeout_s=5)


async def test_closing_the_app_stops_the_watcher(make_app: AppMaker, tmp_path: Path) -> None:
    app, _ = await make_app(env={"HOME": str(tmp_path / "home-dir")})
    await app.start_background()
    assert app.skills_watch.running
    await app.aclose()
    assert not app.skills_watch.running
