"""A real, private system keychain for the frozen app: its own D-Bus session bus with GNOME
Keyring's Secret Service on it, unlocked with a throwaway password. The frozen app cannot load
the tests' file keyring (app.testing is not bundled), so its keyring is proven against the
backend it ships for Linux desktops (keyring.backends.SecretService over jeepney)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

TOOLS = ("dbus-daemon", "gnome-keyring-daemon")


def missing_keychain_tools() -> str | None:
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    if absent:
        return f"{', '.join(absent)} missing (apt-get install -y dbus-daemon gnome-keyring)"
    return None


@contextlib.contextmanager
def private_keychain(base: Path, env: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """Yield `env` plus the bus address and private HOME/XDG folders of an unlocked keychain.
    The keyring daemon leaves when its bus does (at the end of the block)."""
    home = base / "home"
    for sub in ("data", "runtime", "config"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    (home / "runtime").chmod(0o700)
    full = {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_RUNTIME_DIR": str(home / "runtime"), "XDG_CONFIG_HOME": str(home / "config")}
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"], env=full,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert bus.stdout is not None
        address = bus.stdout.readline().strip()
        assert address, "dbus-daemon printed no address"
        full["DBUS_SESSION_BUS_ADDRESS"] = address
        # --unlock reads the password on stdin, creates the "login" keyring (the default
        # collection) with it and returns once the Secret Service is on the bus.
        unlocked = subprocess.run(["gnome-keyring-daemon", "--unlock", "--components=secrets"],
                                  input="throwaway", env=full, capture_output=True, text=True, timeout=60)
        assert unlocked.returncode == 0, unlocked.stderr
        yield full
    finally:
        bus.terminate()
        bus.wait(30)
