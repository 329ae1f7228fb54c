"""Which workspaces may send the user's API key to the base URL their config file names.

A workspace's `.cashcode/config.yaml` arrives with a cloned repository, so its `base_url` is
the repository author's choice, not the user's. The environment key (`OPENAI_API_KEY`) goes to
such a URL only after the user trusted that workspace: one record per workspace path holding the
SHA-256 of the config file it was given for and the host it names. Any change to the file (or
a different folder) needs a new trust. Records live in `trusted_workspaces.json` in the config
folder (owner-only, atomic writes); a damaged file trusts nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.support.atomic import atomic_write_text

TRUST_FILE = "trusted_workspaces.json"
MAX_RECORDS = 500  # oldest dropped first; a user trusts a handful of folders


class TrustRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    workspace: str = Field(min_length=1, max_length=4096)
    config_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    host: str = Field(max_length=300)


class _TrustFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 1
    records: list[TrustRecord] = Field(default_factory=list)


def ascii_host(netloc: str) -> str:
    """A URL's host (with its port) as the app connects to it: a name with non-ASCII letters in
    its IDNA ASCII (punycode) form, so a look-alike such as "аpple.com" with a Cyrillic "а" is
    shown as the "xn--pple-43d.com" it is (issue 33.13). The same encoding as the HTTP client
    (the `idna` package httpx2 uses); a name that has none is shown escaped."""
    userinfo, at, hostport = netloc.rpartition("@")
    host, port = hostport, ""
    if not hostport.startswith("["):  # an IPv6 literal is ASCII
        name, colon, digits = hostport.rpartition(":")
        if colon and digits.isdigit():
            host, port = name, colon + digits
    if host.isascii():
        return netloc
    import idna  # lazy: only for a non-ASCII host

    try:
        shown = idna.encode(host.lower()).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        shown = host.encode("ascii", "backslashreplace").decode("ascii")
    return f"{userinfo}{at}{shown}{port}"


def config_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class WorkspaceTrust:
    """The trust records in one file; every call reads the file again (the CLI is short-lived)."""

    def __init__(self, path: Path) -> None:
        self._path = path

    @classmethod
    def in_config_dir(cls, config_dir: Path) -> WorkspaceTrust:
        return cls(config_dir / TRUST_FILE)

    def is_trusted(self, workspace: Path, digest: str) -> bool:
        key = str(workspace)
        return any(r.workspace == key and r.config_sha256 == digest for r in self._load())

    def trust(self, workspace: Path, digest: str, host: str) -> None:
        key = str(workspace)
        kept = [r for r in self._load() if r.workspace != key]
        kept.append(TrustRecord(workspace=key, config_sha256=digest, host=host))
        self._save(kept[-MAX_RECORDS:])

    def revoke(self, workspace: Path) -> bool:
        records = self._load()
        kept = [r for r in records if r.workspace != str(workspace)]
        if len(kept) == len(records):
            return False
        self._save(kept)
        return True

    def _load(self) -> list[TrustRecord]:
        try:
            raw = self._path.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return []
        except (OSError, UnicodeDecodeError):
            return []  # unreadable: trust nothing (the safe direction)
        try:
            return list(_TrustFile.model_validate(json.loads(raw)).records)
        except (ValueError, ValidationError):
            return []

    def _save(self, records: list[TrustRecord]) -> None:
        self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write_text(self._path, _TrustFile(records=records).model_dump_json(indent=2) + "\n")
