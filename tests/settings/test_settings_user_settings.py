from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings.user_settings import (
    ModelChoice,
    ProviderProfile,
    SettingsError,
    SettingsStore,
    UserSettings,
)

OLLAMA = ProviderProfile(id="ollama", name="Ollama", kind="ollama", base_url="http://127.0.0.1:11434")


@pytest.fixture
def store(tmp_path: Path) -> SettingsStore:
    return SettingsStore(tmp_path / "config" / "settings.json")


def test_a_missing_file_loads_as_defaults(store: SettingsStore) -> None:
    s = store.load()
    assert s == UserSettings()
    assert (s.theme, s.language, s.approval_mode, s.max_iterations) == ("system", "en", "ask_writes", 20)
    assert not s.allow_private_network and not s.legacy_migrated and s.workspace == ""
    assert not store.exists()


def test_settings_round_trip_through_the_file(store: SettingsStore) -> None:
    saved = UserSettings(
        providers=[OLLAMA],
        theme="dark",
        language="zh-CN",
        workspace="/home/u/proj",
        last_model=ModelChoice(provider_id="ollama", model="llama3.2"),
        approval_mode="read_only",
        tool_policies={"exec": "never", "read_file": "always"},
        max_iterations=50,
        allow_private_network=True,
        legacy_migrated=True,
    )
    store.save(saved)
    assert store.load() == saved


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_the_file_is_private_and_no_temp_files_are_left(store: SettingsStore) -> None:
    store.save(UserSettings(theme="light"))
    store.save(UserSettings(theme="dark"))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [p.name for p in store.path.parent.iterdir()] == ["settings.json"]


def test_update_applies_a_change_and_saves_it(store: SettingsStore) -> None:
    result = store.update(lambda s: s.model_copy(update={"theme": "dark"}))
    assert result.theme == "dark" == store.load().theme


def test_saving_invalid_settings_is_refused_and_keeps_the_file(store: SettingsStore) -> None:
    store.save(UserSettings(theme="dark"))
    with pytest.raises(ValidationError):
        store.update(lambda s: s.model_copy(update={"max_iterations": 0}))
    assert store.load().theme == "dark" and store.load().max_iterations == 20


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe garbage", "not valid JSON"),
        (json.dumps({"theme": "purple"}).encode(), "theme"),
        (json.dumps({"max_iterations": 1000}).encode(), "max_iterations"),
        (json.dumps([1, 2]).encode(), "invalid values"),
        (
            json.dumps(
                {"providers": [{"id": "../x", "name": "x", "kind": "ollama", "base_url": "http://h"}]}
            ).encode(),
            "providers",
        ),
    ],
)
def test_a_corrupt_or_invalid_file_raises_settings_error_and_is_left_unchanged(
    store: SettingsStore, content: bytes, fragment: str
) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(content)

    with pytest.raises(SettingsError, match=fragment) as err:
        store.load()

    assert str(store.path) in str(err.value)
    assert store.path.read_bytes() == content


def test_quarantine_moves_a_bad_file_aside_so_the_app_can_start_fresh(store: SettingsStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(b"{broken")

    moved = store.quarantine()

    assert moved is not None and moved.name.startswith("settings.json.corrupt-")
    assert moved.read_bytes() == b"{broken"
    assert store.load() == UserSettings()
    assert store.quarantine() is None


def test_unknown_keys_from_a_newer_version_are_ignored(store: SettingsStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text(json.dumps({"theme": "dark", "future_feature": {"x": 1}}))
    assert store.load().theme == "dark"


@pytest.mark.parametrize(
    "fields",
    [
        {"id": "Bad Id"},
        {"id": "../etc"},
        {"id": ""},
        {"base_url": "ftp://example.com"},
        {"base_url": "javascript:alert(1)"},
        {"base_url": "http://"},
        {"kind": "anthropic"},
        {"name": ""},
    ],
)
def test_invalid_provider_profiles_are_refused(fields: dict[str, str]) -> None:
    good = {"id": "my-provider", "name": "Mine", "kind": "chat_completions", "base_url": "https://x.test/v1"}
    with pytest.raises(ValidationError):
        ProviderProfile.model_validate(good | fields)


def test_provider_ids_may_be_slugs_or_uuids_and_urls_lose_their_trailing_slash() -> None:
    p = ProviderProfile(
        id="0b6c2b8e-5d3c-4bb0-9a57-6f4d1f7f0c11",
        name="x",
        kind="responses",
        base_url="https://api.openai.com/v1/",
    )
    assert p.base_url == "https://api.openai.com/v1"


def test_duplicate_provider_ids_are_refused() -> None:
    with pytest.raises(ValidationError):
        UserSettings(providers=[OLLAMA, OLLAMA])


def test_the_default_provider_is_the_last_used_one_else_the_first() -> None:
    other = ProviderProfile(
        id="openai", name="OpenAI", kind="responses", base_url="https://api.openai.com/v1"
    )
    assert UserSettings().default_provider() is None
    assert UserSettings(providers=[OLLAMA, other]).default_provider() == OLLAMA
    chosen = UserSettings(providers=[OLLAMA, other], last_model=ModelChoice(provider_id="openai", model="m"))
    assert chosen.default_provider() == other


# A save that dies between writing the temp file and the rename must leave the old file intact.
CRASHING_SAVER = textwrap.dedent(
    """
    import os, sys, time
    from app.settings.user_settings import SettingsStore, UserSettings

    def stop_before_rename(src, dst):
        print("WRITTEN", flush=True)
        time.sleep(3600)

    os.replace = stop_before_rename
    SettingsStore(sys.argv[1]).save(UserSettings(theme="light", max_iterations=99))
    """
)


@pytest.mark.skipif(os.name != "posix", reason="needs kill -9")
def test_a_save_killed_before_the_rename_leaves_the_old_file_intact(store: SettingsStore) -> None:
    store.save(UserSettings(theme="dark"))
    before = store.path.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASHING_SAVER, str(store.path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "WRITTEN"
    leftovers = [p for p in store.path.parent.iterdir() if p.name != "settings.json"]
    assert leftovers, "the new content should sit in a temp file next to the target"

    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()

    assert store.path.read_bytes() == before
    assert store.load().theme == "dark"


SAVE_LOOP = textwrap.dedent(
    """
    import sys
    from app.settings.user_settings import SettingsStore, UserSettings
    store = SettingsStore(sys.argv[1])
    n = 0
    while True:
        policies = {f"t{i}": "ask" for i in range(300)}
        store.save(UserSettings(max_iterations=1 + n % 200, tool_policies=policies))
        print(n, flush=True)
        n += 1
    """
)


@pytest.mark.skipif(os.name != "posix", reason="needs kill -9")
def test_saves_killed_at_arbitrary_moments_always_leave_a_valid_file(store: SettingsStore) -> None:
    for round_ in range(4):
        proc = subprocess.Popen(
            [sys.executable, "-c", SAVE_LOOP, str(store.path)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if int(line) >= 5 + round_ * 3:
                break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        loaded = store.load()
        assert len(loaded.tool_policies) == 300


def test_providers_are_added_replaced_and_removed_with_their_remembered_model() -> None:
    s = UserSettings().with_provider(OLLAMA)
    renamed = OLLAMA.model_copy(update={"name": "Local"})
    other = ProviderProfile(
        id="openai", name="OpenAI", kind="responses", base_url="https://api.openai.com/v1"
    )
    s = s.with_provider(other).with_provider(renamed)
    assert [p.name for p in s.providers] == ["Local", "OpenAI"]

    s = s.model_copy(update={"last_model": ModelChoice(provider_id="ollama", model="llama3")})
    assert s.without_provider("openai").last_model is not None
    gone = s.without_provider("ollama")
    assert gone.providers == [other] and gone.last_model is None
