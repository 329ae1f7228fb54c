"""A damaged settings file is set aside (never lost, never silently overwritten) and the app
starts with defaults, saying so once through app.info."""

from __future__ import annotations

from pathlib import Path

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, ok


async def test_a_damaged_settings_file_is_kept_aside_and_reported(
    make_app: AppMaker, paths: AppPaths
) -> None:
    paths.config_dir.mkdir(parents=True)
    paths.settings_path.write_text("{not json", encoding="utf-8")
    app, _ = await make_app()

    info = await ok(app, "app.info")
    assert len(info["notices"]) == 1 and "could not be read" in info["notices"][0]
    kept = list(paths.config_dir.glob("settings.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == "{not json"
    assert str(kept[0]) in info["notices"][0]
    # Everything works again with defaults.
    assert (await ok(app, "settings.get"))["theme"] == "system"
    assert (await ok(app, "providers.list"))["providers"] == []


async def test_a_healthy_start_has_no_notices(make_app: AppMaker) -> None:
    app, _ = await make_app()
    assert (await ok(app, "app.info"))["notices"] == []


async def test_a_settings_file_damaged_while_running_is_a_clear_invalid_error(
    make_app: AppMaker, paths: AppPaths
) -> None:
    app, _ = await make_app()
    Path(paths.settings_path).write_text("[]", encoding="utf-8")
    envelope = await app.invoke("settings.get", {})
    assert envelope["ok"] is False and envelope["error"]["code"] == "invalid"
    assert "settings" in envelope["error"]["message"]


async def test_a_deeply_nested_settings_file_is_set_aside_too(make_app: AppMaker, paths: AppPaths) -> None:
    paths.config_dir.mkdir(parents=True)
    nested = '{"tool_policies": ' + "[" * 100_000 + "]" * 100_000 + "}"
    paths.settings_path.write_text(nested, encoding="utf-8")
    app, _ = await make_app()
    info = await ok(app, "app.info")
    assert len(info["notices"]) == 1 and "nested too deeply" in info["notices"][0]
    assert len(list(paths.config_dir.glob("settings.json.corrupt-*"))) == 1
    assert (await ok(app, "settings.get"))["theme"] == "system"
