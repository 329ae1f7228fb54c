"""Sources, shadowing, diagnostics and enabled state (SPEC S7.2)."""

from __future__ import annotations

import os
from pathlib import Path

from app.skills.catalog import SkillCatalog
from app.skills.redact import Redactor
from app.skills.sources import SkillDataPaths, default_builtin_dir, default_roots
from app.skills.state import SkillStateFile
from app.skills.validate import validate_package

from .helpers import REPO, Env, skill_md, write_skill


def test_default_roots_follow_the_spec_order(tmp_path: Path) -> None:
    roots = default_roots(tmp_path / "d", tmp_path / "h", tmp_path / "w")
    assert [r.source for r in roots.ordered()] == [
        "builtin",
        "external",
        "external",
        "external",
        "user",
        "agent",
    ]
    assert roots.external == (
        tmp_path / "h/.agents/skills",
        tmp_path / "h/.claude/skills",
        tmp_path / "w/.agents/skills",
    )
    assert (roots.user, roots.agent) == (tmp_path / "d/skills/user", tmp_path / "d/skills/agent")
    assert roots.builtin == (REPO / "resources" / "skills",)


def test_the_shipped_builtin_skills_are_valid() -> None:
    folders = [p for p in default_builtin_dir().iterdir() if p.is_dir()]
    assert any(p.name == "cashcode-skill-creator" for p in folders)
    for folder in folders:
        result = validate_package(folder)
        assert result.kind == "valid", result


def test_skills_from_every_source_are_listed(env: Env) -> None:
    write_skill(env.builtin, "alpha")
    write_skill(env.home / ".claude" / "skills", "beta")
    write_skill(env.workspace / ".agents" / "skills", "gamma")
    write_skill(env.roots.user, "delta")
    write_skill(env.roots.agent, "epsilon")
    snapshot = env.catalog.refresh()
    assert {(e.name, e.source) for e in snapshot.active()} == {
        ("alpha", "builtin"),
        ("beta", "external"),
        ("gamma", "external"),
        ("delta", "user"),
        ("epsilon", "agent"),
    }


def test_a_higher_source_shadows_a_lower_one_and_the_catalog_says_so(env: Env) -> None:
    write_skill(env.builtin, "pdf")
    write_skill(env.home / ".agents" / "skills", "pdf")
    write_skill(env.roots.user, "pdf", skill_md("pdf", description="Mine."))
    snapshot = env.catalog.refresh()
    winner = snapshot.get("pdf")
    assert winner is not None and winner.source == "user" and winner.manifest.description == "Mine."
    assert [s.source for s in winner.shadows] == ["builtin", "external"]
    losers = [e for e in snapshot.entries if e.name == "pdf" and not e.active]
    assert {e.source for e in losers} == {"builtin", "external"}
    assert all(e.shadowed_by is not None and e.shadowed_by.source == "user" for e in losers)
    assert not any(e.selectable for e in losers)


def test_the_agent_source_beats_the_user_source(env: Env) -> None:
    write_skill(env.roots.user, "notes")
    write_skill(env.roots.agent, "notes")
    entry = env.catalog.refresh().get("notes")
    assert entry is not None and entry.source == "agent"


def test_invalid_packages_are_diagnostics_never_entries_and_never_shadow(env: Env) -> None:
    write_skill(env.builtin, "pdf")
    write_skill(env.roots.user, "pdf", skill_md("pdf", body=""))
    (env.roots.user / "no-skill-md").mkdir()
    snapshot = env.catalog.refresh()
    winner = snapshot.get("pdf")
    assert winner is not None and winner.source == "builtin"
    assert {(d.source, d.dir_name) for d in snapshot.diagnostics} == {
        ("user", "pdf"),
        ("user", "no-skill-md"),
    }
    assert all(d.reason for d in snapshot.diagnostics)


def test_diagnostic_reasons_are_redacted_and_bounded(env: Env) -> None:
    home_path = str(env.home)
    write_skill(
        env.home / ".claude" / "skills",
        "leaky",
        skill_md(f"api_key=sk-{'a' * 40}{home_path}", description="d" * 5000),
    )
    diag = env.catalog.refresh().diagnostics[0]
    assert home_path not in diag.reason and home_path not in diag.display_path
    assert "sk-aaaa" not in diag.reason
    assert len(diag.reason) <= 300
    assert diag.display_path == "~/.claude/skills/leaky"


def test_hidden_and_staging_folders_are_ignored(env: Env) -> None:
    write_skill(env.roots.user, ".hidden")
    write_skill(env.paths.staging, "half-done")
    (env.roots.user / "README.txt").parent.mkdir(parents=True, exist_ok=True)
    (env.roots.user / "README.txt").write_text("not a skill")
    snapshot = env.catalog.refresh()
    assert snapshot.entries == () and snapshot.diagnostics == ()


def test_disabled_skills_stay_listed_and_the_state_survives_a_restart(env: Env) -> None:
    write_skill(env.builtin, "alpha")
    env.store.set_enabled("alpha", False)
    entry = env.catalog.refresh().get("alpha")
    assert entry is not None and not entry.enabled and not entry.selectable
    paths = SkillDataPaths.from_data_dir(env.data_dir)
    again = (
        SkillCatalog(env.roots, SkillStateFile(paths.state_file), Redactor(env.home)).refresh().get("alpha")
    )
    assert again is not None and not again.enabled
    env.store.set_enabled("alpha", True)
    enabled = env.catalog.refresh().get("alpha")
    assert enabled is not None and enabled.selectable


def test_a_damaged_state_file_means_everything_is_enabled(env: Env) -> None:
    write_skill(env.builtin, "alpha")
    env.paths.state_file.parent.mkdir(parents=True, exist_ok=True)
    env.paths.state_file.write_text("{not json")
    entry = env.catalog.refresh().get("alpha")
    assert entry is not None and entry.enabled


def test_each_refresh_has_a_higher_revision(env: Env) -> None:
    first = env.catalog.refresh().revision
    assert env.catalog.refresh().revision == first + 1


def test_a_linked_skill_folder_or_root_is_refused_with_a_diagnostic(tmp_path: Path, env: Env) -> None:
    # Issue 22 item 7: a link would let a Skill's files live (and change) outside every root.
    real = write_skill(tmp_path / "projects", "linked", files={"ref/a.md": b"a"})
    root = env.home / ".claude" / "skills"
    root.mkdir(parents=True)
    os.symlink(real, root / "linked")
    (env.home / ".agents").mkdir()
    os.symlink(tmp_path / "projects", env.home / ".agents" / "skills")
    snapshot = env.catalog.refresh()
    assert snapshot.get("linked") is None
    reasons = {d.dir_name: d.reason for d in snapshot.diagnostics}
    assert "symbolic link" in reasons["linked"] and "symbolic link" in reasons["skills"]
    assert all(str(tmp_path) not in d.reason for d in snapshot.diagnostics)


def test_a_skills_root_that_is_a_file_is_reported(env: Env) -> None:
    root = env.home / ".claude" / "skills"
    root.parent.mkdir(parents=True)
    root.write_text("not a folder")
    diagnostics = env.catalog.refresh().diagnostics
    assert [(d.dir_name, d.problems[0].rule) for d in diagnostics] == [("skills", "root.invalid")]
    assert "not a folder" in diagnostics[0].reason


def test_a_package_with_too_many_files_is_invalid(env: Env) -> None:
    write_skill(env.roots.user, "many", files={f"ref/{i}.md": b"x" for i in range(513)})
    write_skill(env.roots.user, "enough", files={f"ref/{i}.md": b"x" for i in range(511)})
    snapshot = env.catalog.refresh()
    assert snapshot.get("enough") is not None and snapshot.get("many") is None
    assert "more than 512 files" in {d.dir_name: d.reason for d in snapshot.diagnostics}["many"]


def test_diagnostics_are_bounded_and_carry_no_host_path(env: Env) -> None:
    long_name = "n" * 120
    text = f"---\nname: Bad_Name {'x' * 400}\ndescription: ''\n---\n"
    write_skill(env.roots.user, long_name, text)
    (diagnostic,) = env.catalog.refresh().diagnostics
    assert len(diagnostic.dir_name) <= 80 and len(diagnostic.reason) <= 240
    assert len(diagnostic.problems) <= 3 and all(len(p.message) <= 240 for p in diagnostic.problems)
    assert str(env.data_dir) not in diagnostic.reason


def test_a_refresh_that_finds_nothing_new_keeps_the_entries_and_every_change_is_seen(env: Env) -> None:
    """The refresh on every turn reuses the last entries when the walk found the same folders
    with the same memoised results and the same disabled names; each kind of change still
    gives new entries at the very next refresh."""
    write_skill(env.roots.user, "alpha")
    write_skill(env.roots.user, "beta")
    first = env.catalog.refresh()
    again = env.catalog.refresh()
    assert again.revision == first.revision + 1 and again.entries is first.entries

    (env.roots.user / "alpha" / "SKILL.md").write_text(skill_md("alpha", "Edited, and longer than before."))
    edited = env.catalog.refresh()
    entry = edited.get("alpha")
    assert entry is not None and entry.manifest.description == "Edited, and longer than before."

    write_skill(env.roots.user, "gamma")
    assert env.catalog.refresh().get("gamma") is not None

    SkillStateFile(env.paths.state_file).set_enabled("beta", False)  # as another process would
    beta = env.catalog.refresh().get("beta")
    assert beta is not None and not beta.enabled

    (env.roots.user / "gamma" / "SKILL.md").unlink()
    (env.roots.user / "gamma").rmdir()
    assert env.catalog.refresh().get("gamma") is None

    (env.roots.user / "broken").mkdir()  # a folder without SKILL.md: listed as a diagnostic
    assert [d.dir_name for d in env.catalog.refresh().diagnostics] == ["broken"]
