"""The places a confined program may never read, even when the workspace contains them.

One listed set (SPEC: credentials, keyrings, browser profiles), relative to the home folder,
plus what the caller adds: the app's own folders and the paths the user lists in Settings.
Landlock grants by allow-list, so most of these are already unreadable because home is not
granted; this list matters when the workspace is home or contains one of them (the policy then
grants the workspace around them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

HOME_SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".netrc",
    ".docker",
    ".git-credentials",
    ".config/gh",
    ".pypirc",
    ".npmrc",
    # keyrings: GNOME, KDE Wallet, keyrings.alt
    ".local/share/keyrings",
    ".local/share/kwalletd",
    ".local/share/python_keyring",
    # browser profiles
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    "snap/firefox",
    "snap/chromium",
    ".var/app/org.mozilla.firefox",
    ".var/app/com.google.Chrome",
    ".var/app/org.chromium.Chromium",
)
# A file keyring chosen by environment (the test keyring of app/testing/fake_keyring.py).
KEYRING_FILE_VARS = ("CASHCODE_TEST_KEYRING_FILE",)


def never_readable(home: Path, env: Mapping[str, str], extra: Iterable[Path] = ()) -> tuple[Path, ...]:
    """Absolute paths (not resolved; they need not exist) no confined program may read."""
    found = [home / rel for rel in HOME_SECRETS]
    found += [Path(env[var]) for var in KEYRING_FILE_VARS if env.get(var, "").strip()]
    found += list(extra)
    return tuple(dict.fromkeys(p.absolute() for p in found))
