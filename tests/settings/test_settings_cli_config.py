from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from app.settings.cli_config import (
    CliFlags,
    ConfigError,
    EffectiveConfig,
    migrate_legacy_env,
    render_config,
    resolve_cli_config,
)
from app.settings.secrets import KeyringUnavailable, SecretStore, provider_key_name
from app.settings.user_settings import ModelChoice, ProviderProfile, SettingsStore, UserSettings
from app.settings.workspace_trust import WorkspaceTrust
from app.testing.fake_keyring import MemoryKeyring

OLLAMA = ProviderProfile(id="ollama", name="Ollama", kind="ollama", base_url="http://127.0.0.1:11434/v1")
OPENAI = ProviderProfile(id="openai", name="OpenAI", kind="responses", base_url="https://api.openai.com/v1")
DEEPSEEK = ProviderProfile(
    id="deepseek", name="DeepSeek", kind="chat_completions", base_url="https://api.deepseek.com"
)
SAVED = UserSettings(
    providers=[OLLAMA, OPENAI],
    last_model=ModelChoice(provider_id="openai", model="gpt-5-mini"),
    max_iterations=30,
)


@dataclass
class Case:
    name: str
    expect: dict[str, tuple[object, str]]  # field -> (value, source starts with)
    flags: CliFlags = field(default_factory=CliFlags)
    env: dict[str, str] = field(default_factory=dict)
    workspace_yaml: dict[str, object] | None = None
    user: UserSettings = field(default_factory=UserSettings)


CASES = [
    Case(
        "defaults only",
        {
            "model": ("gpt-4o-mini", "default"),
            "api_mode": ("chat_completions", "default"),
            "base_url": ("https://api.openai.com/v1", "default"),
            "stream": (True, "default"),
            "max_iterations": (20, "user settings"),
            "provider_kind": ("chat_completions", ""),
            "provider_id": (None, ""),
        },
    ),
    Case(
        "user settings: the last used provider and its model",
        {
            "provider_id": ("openai", ""),
            "model": ("gpt-5-mini", "user settings (last model)"),
            "api_mode": ("responses", "user settings (provider openai)"),
            "base_url": ("https://api.openai.com/v1", "user settings (provider openai)"),
            "max_iterations": (30, "user settings"),
            "provider_kind": ("responses", ""),
        },
        user=SAVED,
    ),
    Case(
        "user settings: first provider when no last model; ollama keeps its kind",
        {
            "provider_id": ("ollama", ""),
            "model": ("gpt-4o-mini", "default"),
            "provider_kind": ("ollama", ""),
            "api_mode": ("chat_completions", "user settings (provider ollama)"),
        },
        user=UserSettings(providers=[OLLAMA, OPENAI]),
    ),
    Case(
        "workspace yaml beats user settings",
        {
            "model": ("qwen3", "workspace "),
            "api_mode": ("chat_completions", "workspace "),
            "base_url": ("http://localhost:8000/v1", "workspace "),
            "stream": (False, "workspace "),
            "max_iterations": (7, "workspace "),
            "provider_kind": ("chat_completions", ""),
        },
        workspace_yaml={
            "model": "qwen3",
            "api_mode": "chat_completions",
            "base_url": "http://localhost:8000/v1/",
            "stream": False,
            "max_iterations": 7,
        },
        user=SAVED,
    ),
    Case(
        "env beats workspace yaml",
        {
            "model": ("env-model", "env CASHCODE_MODEL"),
            "api_mode": ("responses", "env CASHCODE_API_MODE"),
            "base_url": ("https://proxy.test/v1", "env OPENAI_BASE_URL"),
            "stream": (False, "env CASHCODE_STREAM"),
        },
        env={
            "CASHCODE_MODEL": "env-model",
            "CASHCODE_API_MODE": "responses",
            "OPENAI_BASE_URL": "https://proxy.test/v1",
            "CASHCODE_STREAM": "off",
        },
        workspace_yaml={
            "model": "qwen3",
            "api_mode": "chat_completions",
            "base_url": "http://x:1",
            "stream": True,
        },
        user=SAVED,
    ),
    Case(
        "flags beat env",
        {
            "provider_id": ("ollama", ""),
            "model": ("flag-model", "flag --model"),
            "api_mode": ("chat_completions", "flag --api-mode"),
            "base_url": ("http://127.0.0.1:9/v1", "flag --base-url"),
            "stream": (True, "flag --stream"),
            "max_iterations": (3, "flag --max-iterations"),
        },
        flags=CliFlags(
            provider="Ollama",
            model="flag-model",
            api_mode="chat_completions",
            base_url="http://127.0.0.1:9/v1",
            stream=True,
            max_iterations=3,
        ),
        env={
            "CASHCODE_MODEL": "env-model",
            "CASHCODE_API_MODE": "responses",
            "CASHCODE_STREAM": "0",
            "OPENAI_BASE_URL": "https://proxy.test/v1",
        },
        workspace_yaml={"max_iterations": 9},
        user=SAVED,
    ),
    Case(
        "empty env values are ignored",
        {"model": ("gpt-5-mini", "user settings"), "api_mode": ("responses", "user settings")},
        env={"CASHCODE_MODEL": "", "CASHCODE_API_MODE": "", "OPENAI_BASE_URL": ""},
        user=SAVED,
    ),
]


def _resolve(case: Case, tmp_path: Path, secrets: SecretStore | None = None) -> EffectiveConfig:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    if case.workspace_yaml is not None:
        (ws / ".cashcode").mkdir(exist_ok=True)
        (ws / ".cashcode" / "config.yaml").write_text(yaml.safe_dump(case.workspace_yaml))
    return resolve_cli_config(flags=case.flags, env=case.env, user=case.user, secrets=secrets, cwd=ws)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_value_comes_from_the_highest_layer_that_sets_it(case: Case, tmp_path: Path) -> None:
    cfg = _resolve(case, tmp_path)
    for name, (value, source) in case.expect.items():
        assert getattr(cfg, name) == value, name
        if source:
            assert cfg.sources[name].startswith(source), (name, cfg.sources[name])


def test_the_workspace_defaults_to_the_current_folder_then_settings_env_and_flag(tmp_path: Path) -> None:
    dirs = {n: tmp_path / n for n in ("cwd", "user", "env", "flag")}
    for d in dirs.values():
        d.mkdir()
    (tmp_path / "link").symlink_to(dirs["flag"])

    def ws(flags: CliFlags, env: dict[str, str], user: UserSettings) -> tuple[Path, str]:
        cfg = resolve_cli_config(flags=flags, env=env, user=user, secrets=None, cwd=dirs["cwd"])
        return cfg.workspace, cfg.sources["workspace"]

    user = UserSettings(workspace=str(dirs["user"]))
    env = {"WORKSPACE_DIR": str(dirs["env"])}
    assert ws(CliFlags(), {}, UserSettings()) == (dirs["cwd"].resolve(), "default (current directory)")
    assert ws(CliFlags(), {}, user) == (dirs["user"].resolve(), "user settings")
    assert ws(CliFlags(), env, user) == (dirs["env"].resolve(), "env WORKSPACE_DIR")
    assert ws(CliFlags(workspace=str(tmp_path / "link")), env, user) == (
        dirs["flag"].resolve(),
        "flag --workspace",
    )


def test_a_missing_workspace_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="WORKSPACE_DIR"):
        resolve_cli_config(
            flags=CliFlags(),
            env={"WORKSPACE_DIR": str(tmp_path / "nope")},
            user=UserSettings(),
            secrets=None,
            cwd=tmp_path,
        )


@pytest.mark.parametrize(
    "entry",
    [
        {"api_key": "abc123456789"},
        {"OPENAI_API_KEY": "x-123456789"},
        {"token": "tok-value-123"},
        {"password": "pw-value-123"},
        {"model": "sk-abcdefghijkl"},
        {"base_url": "https://user:hunter2@proxy.test/v1"},
    ],
)
def test_a_secret_in_the_workspace_file_is_a_config_error(tmp_path: Path, entry: dict[str, str]) -> None:
    case = Case("secret", {}, workspace_yaml={"stream": True, **entry})
    with pytest.raises(ConfigError, match="secrets are not allowed") as err:
        _resolve(case, tmp_path)
    for value in entry.values():
        assert value not in str(err.value)


@pytest.mark.parametrize(
    ("yaml_text", "fragment"),
    [
        ("model: [unclosed", "not valid YAML"),
        ("- a\n- b\n", "must be a mapping"),
        ("api_mode: chat\n", "api_mode"),
        ("max_iterations: 0\n", "max_iterations"),
        ("base_url: file:///etc/passwd\n", "base_url"),
        ("colour: blue\n", "colour"),
    ],
)
def test_an_invalid_workspace_file_is_a_config_error(tmp_path: Path, yaml_text: str, fragment: str) -> None:
    (tmp_path / ".cashcode").mkdir()
    (tmp_path / ".cashcode" / "config.yaml").write_text(yaml_text)
    with pytest.raises(ConfigError, match=fragment):
        resolve_cli_config(flags=CliFlags(), env={}, user=UserSettings(), secrets=None, cwd=tmp_path)


def test_an_empty_workspace_file_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / ".cashcode").mkdir()
    (tmp_path / ".cashcode" / "config.yaml").write_text("")
    cfg = resolve_cli_config(flags=CliFlags(), env={}, user=UserSettings(), secrets=None, cwd=tmp_path)
    assert cfg.model == "gpt-4o-mini"


@pytest.mark.parametrize(
    ("flags", "env", "fragment"),
    [
        (CliFlags(), {"CASHCODE_API_MODE": "completions"}, "CASHCODE_API_MODE"),
        (CliFlags(api_mode="ollama"), {}, "--api-mode"),
        (CliFlags(), {"CASHCODE_STREAM": "maybe"}, "CASHCODE_STREAM"),
        (CliFlags(), {"OPENAI_BASE_URL": "api.openai.com"}, "OPENAI_BASE_URL"),
        (CliFlags(max_iterations=500), {}, "max-iterations"),
        (CliFlags(provider="nope"), {}, "unknown provider"),
    ],
)
def test_invalid_flag_or_env_values_are_config_errors(
    tmp_path: Path, flags: CliFlags, env: dict[str, str], fragment: str
) -> None:
    with pytest.raises(ConfigError, match=fragment):
        resolve_cli_config(flags=flags, env=env, user=SAVED, secrets=None, cwd=tmp_path)


class ExplodingSecrets(SecretStore):
    """Proves the keychain is not consulted."""

    def get(self, name: str) -> str | None:
        raise AssertionError("the keychain must not be touched")


def test_the_env_api_key_wins_and_the_keychain_is_not_touched(tmp_path: Path) -> None:
    cfg = resolve_cli_config(
        flags=CliFlags(),
        env={"OPENAI_API_KEY": "sk-env-123456789"},
        user=SAVED,
        secrets=ExplodingSecrets(backend=MemoryKeyring()),
        cwd=tmp_path,
    )
    assert cfg.api_key == "sk-env-123456789"
    assert cfg.sources["api_key"] == "env OPENAI_API_KEY"


def test_the_profile_key_comes_from_the_keychain(tmp_path: Path) -> None:
    secrets = SecretStore(service="CashCode-cli-test", backend=MemoryKeyring())
    secrets.set(provider_key_name("openai"), "sk-stored-123456789")
    try:
        cfg = resolve_cli_config(flags=CliFlags(), env={}, user=SAVED, secrets=secrets, cwd=tmp_path)
        assert cfg.api_key == "sk-stored-123456789"
        assert cfg.sources["api_key"] == "keychain (provider:openai:api_key)"

        moved = resolve_cli_config(
            flags=CliFlags(base_url="https://elsewhere.test"),
            env={},
            user=SAVED,
            secrets=secrets,
            cwd=tmp_path,
        )
        assert moved.api_key is None, "a profile's key is never sent to another endpoint"
    finally:
        secrets.delete(provider_key_name("openai"))


def test_the_key_is_hidden_from_repr_and_from_config_show(tmp_path: Path) -> None:
    cfg = resolve_cli_config(
        flags=CliFlags(),
        env={"OPENAI_API_KEY": "sk-secret-987654321"},
        user=SAVED,
        secrets=None,
        cwd=tmp_path,
    )
    shown = render_config(cfg)
    assert "sk-secret-987654321" not in repr(cfg)
    assert "sk-secret-987654321" not in shown
    assert "api_key: set (env OPENAI_API_KEY)" in shown
    assert "model: gpt-5-mini  (user settings (last model))" in shown

    proxied = resolve_cli_config(
        flags=CliFlags(base_url="https://me:hunter2@proxy.test/v1"),
        env={},
        user=SAVED,
        secrets=None,
        cwd=tmp_path,
    )
    proxied_shown = render_config(proxied)
    assert "hunter2" not in proxied_shown
    assert "base_url: https://********@proxy.test/v1" in proxied_shown

    unset = resolve_cli_config(flags=CliFlags(), env={}, user=UserSettings(), secrets=None, cwd=tmp_path)
    assert "api_key: not set" in render_config(unset)


def test_a_workspace_base_url_gets_the_env_key_only_once_trusted(tmp_path: Path) -> None:
    case = Case(
        "untrusted",
        {},
        env={"OPENAI_API_KEY": "sk-abc-123456789"},
        workspace_yaml={"base_url": "https://example.test/v1"},
    )
    cfg = _resolve(case, tmp_path)
    assert cfg.api_key is None and cfg.untrusted is not None
    assert cfg.untrusted.host == "example.test" and "cashcode config trust" in cfg.untrusted.refusal()
    assert "api_key: withheld" in render_config(cfg) and "sk-abc" not in render_config(cfg)

    trust = WorkspaceTrust(tmp_path / "trust.json")
    trust.trust(cfg.untrusted.workspace, cfg.untrusted.config_sha256, cfg.untrusted.host)
    ws = tmp_path / "ws"
    trusted = resolve_cli_config(
        flags=case.flags, env=case.env, user=case.user, secrets=None, cwd=ws, trust=trust
    )
    assert trusted.api_key == "sk-abc-123456789" and trusted.untrusted is None
    assert "trusted" in trusted.warnings[0]

    (ws / ".cashcode" / "config.yaml").write_text("base_url: https://example.test/v2\n")
    changed = resolve_cli_config(
        flags=case.flags, env=case.env, user=case.user, secrets=None, cwd=ws, trust=trust
    )
    assert changed.api_key is None and changed.untrusted is not None


def test_a_damaged_trust_file_trusts_nothing(tmp_path: Path) -> None:
    (tmp_path / "trust.json").write_text("{not json")
    assert not WorkspaceTrust(tmp_path / "trust.json").is_trusted(tmp_path, "0" * 64)


# ---- legacy DEEPSEEK_* migration ---------------------------------------------------------------

LEGACY_ENV = {"DEEPSEEK_API_KEY": "sk-deepseek-123456789", "DEEPSEEK_API_BASE": "https://api.deepseek.com/v1"}


def test_legacy_deepseek_variables_are_migrated_once(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    secrets = SecretStore(service="CashCode-legacy-test", backend=MemoryKeyring())
    try:
        assert migrate_legacy_env(LEGACY_ENV, store, secrets)
        s = store.load()
        assert s.providers == [DEEPSEEK.model_copy(update={"base_url": "https://api.deepseek.com/v1"})]
        assert s.legacy_migrated and s.last_model == ModelChoice(
            provider_id="deepseek", model="deepseek-chat"
        )
        assert secrets.get("provider:deepseek:api_key") == "sk-deepseek-123456789"
        assert "sk-deepseek" not in store.path.read_text()

        # Never again: not even after the user removed the profile.
        store.update(lambda x: x.model_copy(update={"providers": [], "last_model": None}))
        assert not migrate_legacy_env(
            {**LEGACY_ENV, "DEEPSEEK_API_KEY": "sk-other-123456789"}, store, secrets
        )
        assert store.load().providers == []
        assert secrets.get("provider:deepseek:api_key") == "sk-deepseek-123456789"
    finally:
        secrets.delete("provider:deepseek:api_key")


def test_legacy_variables_are_not_migrated_when_providers_exist_or_nothing_is_set(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    secrets = SecretStore(service="CashCode-legacy-test2", backend=MemoryKeyring())
    assert not migrate_legacy_env({}, store, secrets)
    assert not store.exists()
    store.save(UserSettings(providers=[OLLAMA]))
    assert not migrate_legacy_env(LEGACY_ENV, store, secrets)
    assert store.load().providers == [OLLAMA]


def test_the_legacy_key_is_never_written_to_disk_without_a_keychain(tmp_path: Path) -> None:
    from keyring.backends import fail

    store = SettingsStore(tmp_path / "settings.json")
    with pytest.raises(KeyringUnavailable):
        migrate_legacy_env(LEGACY_ENV, store, SecretStore(backend=fail.Keyring()))
    assert not store.exists()
    assert not store.load().legacy_migrated


def test_the_legacy_variables_are_not_read_by_the_resolver(tmp_path: Path) -> None:
    cfg = resolve_cli_config(
        flags=CliFlags(), env=LEGACY_ENV, user=UserSettings(), secrets=None, cwd=tmp_path
    )
    assert cfg.api_key is None and cfg.base_url == "https://api.openai.com/v1"
