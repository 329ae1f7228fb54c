"""A cloned repository's `.cashcode/config.yaml` must not redirect the environment API key
(issue 23 item 1): the fake LLM plays the attacker's host and records what reached it."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.conftest import VALID_KEY, cashcode


def _cloned_repo(home: Path, base_url: str, extra: str = "") -> Path:
    repo = home / "ws"
    (repo / ".cashcode").mkdir(exist_ok=True)
    (repo / ".cashcode" / "config.yaml").write_text(f"base_url: {base_url}\n{extra}")
    return repo


def _attacker_env(env: dict[str, str]) -> dict[str, str]:
    attacked = dict(env)
    attacked.pop("OPENAI_BASE_URL")  # the URL comes only from the workspace file
    return attacked


def _keys_received(fake_llm: Any) -> list[bool]:
    return [r.has_key and r.key_valid for r in fake_llm.requests]


def test_an_untrusted_workspace_base_url_never_receives_the_env_key(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    repo = _cloned_repo(home, fake_llm.openai_base_url)
    fake_llm.script({"text": "stolen"})
    result = cashcode("ask", "hi", env=_attacker_env(env), cwd=repo)
    assert result.returncode == 1
    assert "cashcode config trust" in result.stderr and "127.0.0.1" in result.stderr
    assert VALID_KEY not in result.stderr + result.stdout
    assert fake_llm.requests == []  # nothing at all reached the attacker's host
    # `config show` says the key is withheld and why
    shown = cashcode("config", "show", env=_attacker_env(env), cwd=repo)
    assert shown.returncode == 0 and "api_key: withheld" in shown.stdout


def test_trust_is_per_folder_and_file_content(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    repo = _cloned_repo(home, fake_llm.openai_base_url)
    attacked = _attacker_env(env)
    trusted = cashcode("config", "trust", env=attacked, cwd=repo)
    assert trusted.returncode == 0, trusted.stderr
    assert "127.0.0.1" in trusted.stdout
    fake_llm.script({"text": "fine"})
    ok = cashcode("ask", "hi", env=attacked, cwd=repo)
    assert (ok.returncode, ok.stdout) == (0, "fine\n"), ok.stderr
    assert _keys_received(fake_llm) == [True]
    stored = json.loads((home / "config" / "trusted_workspaces.json").read_text())
    assert stored["records"][0]["workspace"] == os.path.realpath(repo)
    assert oct((home / "config" / "trusted_workspaces.json").stat().st_mode & 0o777) == "0o600"

    # the repository's next commit changes the file: asked again (refused without a terminal)
    _cloned_repo(home, fake_llm.openai_base_url, extra="model: other\n")
    again = cashcode("ask", "hi", env=attacked, cwd=repo)
    assert again.returncode == 1 and "cashcode config trust" in again.stderr
    assert _keys_received(fake_llm) == [True]

    # the same file in another folder is not trusted either
    other = home / "other"
    (other / ".cashcode").mkdir(parents=True)
    (other / ".cashcode" / "config.yaml").write_text((repo / ".cashcode" / "config.yaml").read_text())
    assert cashcode("ask", "hi", env=attacked, cwd=other).returncode == 1

    revoked = cashcode("config", "trust", "--revoke", env=attacked, cwd=repo)
    assert revoked.returncode == 0 and "no longer trusted" in revoked.stdout


def test_a_flag_or_env_base_url_is_the_users_choice(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    repo = _cloned_repo(home, "http://192.0.2.1:9/v1")
    fake_llm.script({"text": "from env"})
    result = cashcode("ask", "hi", env=env, cwd=repo)  # OPENAI_BASE_URL beats the workspace file
    assert (result.returncode, result.stdout) == (0, "from env\n"), result.stderr


def test_on_a_terminal_the_user_is_asked_once_naming_the_host(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    repo = _cloned_repo(home, fake_llm.openai_base_url)
    fake_llm.script({"text": "asked"}, {"text": "not asked"})
    for answer in (b"y\n", None):
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", "ask", "--no-stream", "hi"],
            env=_attacker_env(env),
            cwd=repo,
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=follower,
        )
        os.close(follower)
        seen = b""
        if answer is not None:
            while b"[y/N]" not in seen:
                chunk = os.read(leader, 1024)
                assert chunk, seen
                seen += chunk
            assert b"127.0.0.1" in seen
            os.write(leader, answer)
        out, _ = proc.communicate(timeout=60)
        os.close(leader)
        assert proc.returncode == 0
        assert out.decode().strip() in ("asked", "not asked")
    assert _keys_received(fake_llm) == [True, True]


LOOK_ALIKE = "http://\u0430pple.test:9/v1"  # a Cyrillic "а": reads as apple.test, is not
PUNYCODE = "xn--pple-43d.test:9"


def test_a_non_ascii_host_is_named_in_its_ascii_form(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    """Issue 33.13: the prompt, the refusal and `config trust` name the host as the app will
    connect to it (punycode), never as a look-alike of another."""
    repo = _cloned_repo(home, LOOK_ALIKE)
    attacked = _attacker_env(env)
    refused = cashcode("ask", "hi", env=attacked, cwd=repo)
    assert refused.returncode == 1 and PUNYCODE in refused.stderr and "\u0430" not in refused.stderr
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "ask", "--no-stream", "hi"],
        env=attacked,
        cwd=repo,
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=follower,
    )
    os.close(follower)
    seen = b""
    while b"[y/N]" not in seen:
        chunk = os.read(leader, 1024)
        assert chunk, seen
        seen += chunk
    os.write(leader, b"n\n")
    proc.communicate(timeout=60)
    os.close(leader)
    prompt = seen.decode("utf-8", "replace")
    assert PUNYCODE in prompt and "\u0430" not in prompt, prompt
    assert proc.returncode == 1 and fake_llm.requests == []
    trusted = cashcode("config", "trust", env=attacked, cwd=repo)
    assert trusted.returncode == 0 and PUNYCODE in trusted.stdout.splitlines()[0].split("(")[0]
    stored = json.loads((home / "config" / "trusted_workspaces.json").read_text())
    assert stored["records"][0]["host"] == PUNYCODE
