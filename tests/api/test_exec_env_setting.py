"""Settings → Tools: the extra environment names commands may see."""

from __future__ import annotations

from tests.api.conftest import AppMaker, err, ok


async def test_extra_environment_names_are_saved_and_bad_names_refused(make_app: AppMaker) -> None:
    app, _ = await make_app()
    assert (await ok(app, "settings.get"))["exec_env"] == []
    view = await ok(app, "settings.update", {"exec_env": ["JAVA_HOME", "VIRTUAL_ENV"]})
    assert view["exec_env"] == ["JAVA_HOME", "VIRTUAL_ENV"]
    error = await err(app, "settings.update", {"exec_env": ["OK", "NOT A NAME"]})
    assert error["code"] == "invalid"
    assert (await ok(app, "settings.get"))["exec_env"] == ["JAVA_HOME", "VIRTUAL_ENV"]
    assert app._turn_environment().env_allow == ("JAVA_HOME", "VIRTUAL_ENV")
