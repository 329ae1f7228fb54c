"""The single-instance handover against another local user (issue 23 item 2): a runtime folder
pre-created by someone else is refused, and no reply is ever unpickled."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.desktop.single_instance import Endpoint, UnsafeRuntimeDir, endpoint_for, forward, runtime_dir

ROOT = Path(__file__).resolve().parents[2]

# A listener that knows the key (it wrote it) and answers with a pickle that creates a file
# when unpickled: what another user's process in a folder it owns would do.
ATTACKER = """
import os, sys
from multiprocessing.connection import Listener
folder, tag, marker = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(folder, mode=0o755, exist_ok=True)
key = b"k" * 32
with open(os.path.join(folder, f"cashcode-{tag}.key"), "wb") as fh:
    fh.write(key)
os.chmod(os.path.join(folder, f"cashcode-{tag}.key"), 0o644)
class Boom:
    def __reduce__(self):
        return (open, (marker, "w"))
listener = Listener(os.path.join(folder, f"cashcode-{tag}.sock"), family="AF_UNIX", authkey=key)
os.chmod(os.path.join(folder, f"cashcode-{tag}.sock"), 0o777)
print("READY", flush=True)
conn = listener.accept()
conn.recv_bytes()
conn.send(Boom())
conn.close()
"""

VICTIM = """
import os, sys
from pathlib import Path
from app.desktop.single_instance import endpoint_for, forward
try:
    endpoint = endpoint_for(Path(sys.argv[1]), os.environ)
    print("FORWARDED" if forward(endpoint, ["--quick-ask", "hi"]) else "NOBODY")
except OSError as exc:
    print("REFUSED", exc)
"""


def _tag(data_dir: Path) -> str:
    return hashlib.sha256(str(data_dir.resolve()).encode("utf-8")).hexdigest()[:16]


def _python_for_nobody() -> str | None:
    for candidate in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        ok = subprocess.run(
            ["runuser", "-u", "nobody", "--", candidate, "-c", "pass"], capture_output=True, timeout=30
        )
        if ok.returncode == 0:
            return candidate
    return None


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A world-writable temp folder (sticky, like /tmp) both users can reach."""
    folder = Path(tempfile.mkdtemp(prefix="cc-shared-", dir="/tmp"))
    os.chmod(folder, 0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to act as nobody")
@pytest.mark.skipif(shutil.which("runuser") is None, reason="needs runuser")
def test_a_runtime_folder_pre_created_by_another_user_is_refused(shared_tmp: Path, tmp_path: Path) -> None:
    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python the nobody user can run")
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    folder = shared_tmp / f"cashcode-{os.getuid()}"  # the fallback without XDG_RUNTIME_DIR
    marker = shared_tmp / "pwned"
    attacker = subprocess.Popen(
        ["runuser", "-u", "nobody", "--", python, "-c", ATTACKER, str(folder), _tag(data_dir), str(marker)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert attacker.stdout is not None and attacker.stdout.readline().strip() == "READY"
        assert folder.stat().st_uid != 0
        env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "CASHCODE_RUNTIME_DIR")}
        victim = subprocess.run(
            [sys.executable, "-c", VICTIM, str(data_dir)],
            cwd=ROOT,
            env={
                **env,
                "TMPDIR": str(shared_tmp),
                "PYTHONPATH": str(ROOT),
                "CASHCODE_CACHE_DIR": str(tmp_path / "cache"),
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
        # The squatted folder is refused (a warning) and a private one in the user's cache is
        # used instead (issue 33.11): nobody listens there, and the attacker was never asked.
        assert victim.stdout.startswith("NOBODY"), victim.stdout + victim.stderr
        assert "another user" in victim.stderr
        assert (tmp_path / "cache" / "run").is_dir()
        assert not marker.exists()  # the attacker's pickle never ran
    finally:
        attacker.kill()
        attacker.wait(10)


def test_a_reply_is_never_unpickled(tmp_path: Path) -> None:
    """Even a peer that holds the key (same user, any bug) cannot make us unpickle."""
    run = tmp_path / "run"
    endpoint: Endpoint = endpoint_for(tmp_path / "data", {"CASHCODE_RUNTIME_DIR": str(run)})
    marker = tmp_path / "pwned"
    script = ATTACKER.replace('os.chmod(os.path.join(folder, f"cashcode-{tag}.key"), 0o644)', "")
    script = script.replace("mode=0o755", "mode=0o700")
    peer = subprocess.Popen(
        [sys.executable, "-c", script, str(run), _tag(tmp_path / "data"), str(marker)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert peer.stdout is not None and peer.stdout.readline().strip() == "READY"
        os.chmod(endpoint.key_path, 0o600)
        assert forward(endpoint, ["--quick-ask", "hi"]) is False
        assert not marker.exists()
    finally:
        peer.kill()
        peer.wait(10)


def test_a_folder_open_to_others_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    os.chmod(run, 0o755)
    with pytest.raises(UnsafeRuntimeDir, match="open to other users"):
        runtime_dir({"CASHCODE_RUNTIME_DIR": str(run)})


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    endpoint = endpoint_for(tmp_path / "data", {"CASHCODE_RUNTIME_DIR": str(tmp_path / "run")})
    endpoint.key_path.write_bytes(b"k" * 32)
    os.chmod(endpoint.key_path, 0o644)
    with pytest.raises(UnsafeRuntimeDir):
        forward(endpoint, [])


def test_no_module_of_the_app_uses_pickle() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "app").rglob("*.py")
        if any(
            needle in path.read_text(encoding="utf-8")
            for needle in ("import pickle", "from pickle", "conn.recv()", "conn.send(")
        )
    ]
    assert offenders == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="needs root: another user's folder")
def test_a_squatted_temp_folder_falls_back_to_the_cache(tmp_path: Path) -> None:
    """Issue 33.11: with XDG_RUNTIME_DIR unset, another user made `<tmp>/cashcode-<uid>` first.
    `cashcode desktop` used to stop there ("no usable runtime folder"); it now uses a private
    folder in the user's cache and goes on (here to the display check: no display in this test)."""
    import subprocess
    import sys

    shared = tmp_path / "tmp"
    squatted = shared / f"cashcode-{os.getuid()}"
    squatted.mkdir(parents=True)
    os.chmod(squatted, 0o700)
    os.chown(squatted, 12345, 12345)
    dropped = ("CASHCODE_", "XDG_RUNTIME", "DISPLAY", "WAYLAND")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    for name in ("cache", "data", "config", "log"):
        env[f"CASHCODE_{name.upper()}_DIR"] = str(tmp_path / name)
    env["TMPDIR"] = str(shared)
    done = subprocess.run(
        [sys.executable, "-m", "app", "desktop"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "no usable runtime folder" not in done.stderr, done.stderr
    assert "display" in done.stderr.lower(), done.stderr
    fallback = tmp_path / "cache" / "run"
    assert fallback.is_dir() and fallback.stat().st_mode & 0o077 == 0
    assert os.listdir(squatted) == []  # nothing of ours went into the other user's folder
