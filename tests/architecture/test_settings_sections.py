"""A capability's settings section: its own typed model in the one settings file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from app.host.host import SectionStore
from app.settings.secrets import SecretStore
from app.settings.user_settings import SettingsError, SettingsStore
from app.testing.fake_keyring import MemoryKeyring
from app.websearch.capability import WebSearchPrefs, WebSearchSettings


class Prefs(BaseModel):
    size: int = 3


def test_a_missing_section_is_the_defaults_and_a_saved_one_round_trips(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    section = SectionStore(store, "demo", Prefs)
    assert section.load() == Prefs()
    section.update(lambda p: p.model_copy(update={"size": 9}))
    assert json.loads(store.path.read_text())["sections"]["demo"] == {"size": 9}
    assert SectionStore(SettingsStore(store.path), "demo", Prefs).load().size == 9


def test_an_invalid_section_is_reported_and_the_file_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"sections": {"demo": {"size": "many"}}}))
    before = path.read_bytes()
    with pytest.raises(SettingsError, match="demo"):
        SectionStore(SettingsStore(path), "demo", Prefs).load()
    assert path.read_bytes() == before


def test_web_search_settings_of_an_older_file_move_into_their_section(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"web_search_backend": "searxng", "web_search_url": "http://127.0.0.1:8888"}))
    store = SettingsStore(path)
    prefs = SectionStore(store, "websearch", WebSearchPrefs).load()
    assert (prefs.backend, prefs.url) == ("searxng", "http://127.0.0.1:8888")
    assert WebSearchSettings(store, _secrets()).config().url == "http://127.0.0.1:8888"
    store.save(store.load())  # written back as a section, the flat keys gone
    saved = json.loads(path.read_text())
    assert "web_search_backend" not in saved
    assert saved["sections"]["websearch"] == {"backend": "searxng", "url": "http://127.0.0.1:8888"}


def _secrets() -> SecretStore:
    return SecretStore(backend=MemoryKeyring())
