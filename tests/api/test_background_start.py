"""The desktop starts the app's background work a moment after the app is built, so the page's
first requests are answered first; closing the app before then starts nothing (decision 206)."""

from __future__ import annotations

import asyncio

from app.settings.secrets import SecretStore, classify_backend
from app.testing.fake_keyring import MemoryKeyring
from tests.api.conftest import AppMaker, ok


async def test_routes_answer_before_the_background_work_starts_then_it_starts(make_app: AppMaker) -> None:
    app, _ = await make_app()
    app.start_background_soon(0.3)
    info = await ok(app, "app.info")  # answered while nothing in the background runs yet
    assert "first_run" in info and not app.skills_watch.running
    for _ in range(200):  # bounded wait (not a timing assertion): the start follows the delay
        if app.skills_watch.running:
            break
        await asyncio.sleep(0.05)
    assert app.skills_watch.running


async def test_closing_before_the_delay_starts_nothing(make_app: AppMaker) -> None:
    app, _ = await make_app()
    app.start_background_soon(30)
    await app.aclose()
    await asyncio.sleep(0)
    assert not app.skills_watch.running


def test_a_warmed_store_gives_the_same_backend_as_a_cold_one() -> None:
    warmed = SecretStore()
    warmed.warm()
    cold = SecretStore()
    assert classify_backend(warmed._current()) == classify_backend(cold._current())
    given = SecretStore(backend=MemoryKeyring())
    given.warm()  # a store given its backend never detects one
    assert given._warming is None
