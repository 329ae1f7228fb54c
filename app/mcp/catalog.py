"""The two catalogs: the built-in read-only one (resources/mcp_servers/mcp_config.json) and the
user's (`<data>/mcp/servers.json`, written atomically). Secrets go to the keyring only.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.mcp import frozen
from app.mcp.config import (
    SECRET_ENV_HINT,
    ConfigError,
    Launch,
    Resolved,
    ServerEntry,
    check_display_name,
    check_env,
    check_header,
    check_name,
    check_new_name,
    check_transport,
    check_url,
    secret_name,
)
from app.settings.secrets import MASK, SecretStore
from app.support.atomic import atomic_write_text

FILE_VERSION = 1
MAX_ARGS = 200
MAX_TEXT = 2_000
MAX_HEADERS = 32  # real servers need one or two (Authorization, an API key)
MAX_ENV = 100
MAX_SECRET_CHARS = 8_192  # a long JWT fits; a file pasted by mistake does not


def builtin_dir() -> Path:
    """`resources/mcp_servers` (from source and in the bundle)."""
    return frozen.builtin_root()


def load_builtin(folder: Path) -> list[ServerEntry]:
    """Read the built-in catalog. `"command": "${python}"` runs the first argument (a script) with
    this app's Python — from a frozen build, its own executable (app/mcp/frozen.py); `${here}` is
    the catalog folder; `${port}` stays for the launcher."""
    path = folder / "mcp_config.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out = []
    for name, item in (raw.get("mcpServers") or {}).items():

        def sub(text: str) -> str:
            return text.replace("${here}", str(folder))

        def argv(command: str, args: list[Any]) -> tuple[str, tuple[str, ...]]:
            subbed = [sub(str(a)) for a in args]
            if command == "${python}" and subbed:
                full = frozen.script_argv(subbed[0], subbed[1:])
                return full[0], tuple(full[1:])
            return sub(command), tuple(subbed)

        command, args = argv(str(item.get("command", "")), list(item.get("args", [])))
        launch = item.get("launch")
        launched = argv(str(launch["command"]), list(launch.get("args", []))) if launch else None
        out.append(
            ServerEntry(
                name=check_name(name),
                transport=check_transport(str(item.get("transport", "stdio"))),
                source="builtin",
                display_name=str(item.get("display_name", name)),
                description=str(item.get("description", "")),
                url=str(item.get("url", "")),
                command=command,
                args=args,
                launch=Launch(*launched) if launched else None,
            )
        )
    return out


@dataclass(frozen=True)
class EntryInput:
    """What a create/update/import asks for. Secret values may be MASK (= keep the stored one)."""

    name: str
    transport: str
    display_name: str | None = None
    description: str | None = None
    url: str | None = None
    headers: Mapping[str, str] | None = None
    command: str | None = None
    args: Sequence[str] | None = None
    env: Mapping[str, str] | None = None
    secret_env: Sequence[str] | None = None
    allow_plain_http_auth: bool = False
    sandbox: bool | None = None  # None: keep (a new entry: off)
    network: bool | None = None


class UserCatalog:
    """The user's servers; every write goes temp file + fsync + rename under a lock."""

    def __init__(self, path: Path, secrets: SecretStore) -> None:
        self._path = path
        self._secrets = secrets
        self.secrets = secrets  # OAuth tokens of user servers live here too
        self._lock = threading.Lock()

    # ---- reading -------------------------------------------------------------------------------

    def entries(self) -> list[ServerEntry]:
        return [_from_json(name, item) for name, item in self._read().items()]

    def _read(self) -> dict[str, Any]:
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise ConfigError(f"the MCP catalog {self._path} cannot be read ({exc})") from exc
        servers = raw.get("servers") if isinstance(raw, dict) else None
        return dict(servers) if isinstance(servers, dict) else {}

    def resolve(self, entry: ServerEntry) -> Resolved:
        headers = {
            h: self._secrets.get(secret_name(entry.name, "header", h)) or "" for h in entry.header_names
        }
        env = dict(entry.env)
        for key in entry.secret_env:
            env[key] = self._secrets.get(secret_name(entry.name, "env", key)) or ""
        names = url_secret_names(entry.url)
        query = {k: self._secrets.get(secret_name(entry.name, "query", k)) or "" for k in names}
        return Resolved(
            entry=entry,
            headers=headers,
            env=env,
            url=join_url_secrets(entry.url, query),
            query_secrets=tuple(v for v in query.values() if v),
        )

    # ---- writing -------------------------------------------------------------------------------

    def save(self, req: EntryInput, *, existing: ServerEntry | None) -> ServerEntry:
        """Create (existing None) or update an entry. Secrets are written to the keyring first;
        the file only names them."""
        entry, secret_values = build_entry(req, existing)
        for (kind, key), value in secret_values.items():
            self._secrets.set(secret_name(entry.name, kind, key), value)
        if existing is not None:
            self._forget_dropped(existing, entry)
        with self._lock:
            data = self._read()
            data[entry.name] = _to_json(entry)
            self._write(data)
        return entry

    def confirm(self, entry: ServerEntry) -> ServerEntry:
        confirmed = replace(entry, confirmed_launch=entry.launch_id())
        with self._lock:
            data = self._read()
            data[entry.name] = _to_json(confirmed)
            self._write(data)
        return confirmed

    def delete(self, entry: ServerEntry) -> None:
        with self._lock:
            data = self._read()
            data.pop(entry.name, None)
            self._write(data)
        for h in entry.header_names:
            self._secrets.delete(secret_name(entry.name, "header", h))
        for key in entry.secret_env:
            self._secrets.delete(secret_name(entry.name, "env", key))
        for key in url_secret_names(entry.url):
            self._secrets.delete(secret_name(entry.name, "query", key))
        for what in ("tokens", "client"):
            self._secrets.delete(secret_name(entry.name, "oauth", what))

    def _forget_dropped(self, old: ServerEntry, new: ServerEntry) -> None:
        for h in set(old.header_names) - set(new.header_names):
            self._secrets.delete(secret_name(old.name, "header", h))
        for key in set(old.secret_env) - set(new.secret_env):
            self._secrets.delete(secret_name(old.name, "env", key))
        for key in set(url_secret_names(old.url)) - set(url_secret_names(new.url)):
            self._secrets.delete(secret_name(old.name, "query", key))

    def _write(self, servers: Mapping[str, Any]) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"version": FILE_VERSION, "servers": servers}, indent=2, ensure_ascii=False)
        atomic_write_text(self._path, text)


SecretValues = dict[tuple[Any, str], str]


def build_entry(req: EntryInput, existing: ServerEntry | None) -> tuple[ServerEntry, SecretValues]:
    """Validate a request into an entry and the secret values to store (MASK keeps the old)."""
    # A stored mixed-case name keeps working; a new one follows the lowercase rule.
    name = check_name(req.name) if existing is not None else check_new_name(req.name)
    transport = check_transport(req.transport)
    base = existing or ServerEntry(name=name, transport=transport, source="user")
    secrets: SecretValues = {}
    fields: dict[str, Any] = {"transport": transport}
    if req.display_name is not None:
        fields["display_name"] = check_display_name(req.display_name)
    if req.description is not None:
        fields["description"] = _text(req.description, "description")
    if transport == "stdio":
        command = req.command if req.command is not None else base.command
        if not command or not command.strip():
            raise ConfigError("a stdio server needs a command (the program to run)")
        args = tuple(req.args) if req.args is not None else base.args
        if len(args) > MAX_ARGS or any("\0" in a for a in (command, *args)):
            raise ConfigError("the command line is too long or contains a NUL byte")
        secret_env = tuple(
            check_env(k) for k in (req.secret_env if req.secret_env is not None else base.secret_env)
        )
        kept = {**base.env, **dict.fromkeys(base.secret_env, MASK)}
        env_in = dict(req.env) if req.env is not None else kept
        env: dict[str, str] = {}
        if len(env_in) > MAX_ENV:
            raise ConfigError(f"too many environment variables (at most {MAX_ENV})")
        for key, value in env_in.items():
            check_env(key)
            if key in secret_env:
                if value != MASK:
                    secrets[("env", key)] = _secret(value, key)
                elif key not in base.secret_env:
                    raise ConfigError(f"enter a value for the secret variable {key}")
            else:
                env[key] = "" if value == MASK else str(value)
        missing = [k for k in secret_env if k not in env_in]
        if missing:
            raise ConfigError(f"no value for the secret variable {missing[0]}")
        fields.update(command=command, args=args, env=env, secret_env=secret_env, url="", header_names=())
        if req.sandbox is not None:
            fields["sandbox"] = req.sandbox
        if req.network is not None:
            fields["network"] = req.network
    else:
        if req.sandbox or req.network:
            raise ConfigError("the sandbox is for stdio servers (a program on this computer), not remote")
        fields.update(_remote_fields(req, base, secrets))
    return replace(base, **fields), secrets


def _remote_fields(req: EntryInput, base: ServerEntry, secrets: SecretValues) -> dict[str, Any]:
    """The fields of an http/sse entry; header values and credential query values go to
    `secrets` (the file keeps the URL with those values masked)."""
    url, query_values = split_url_secrets(check_url(req.url if req.url is not None else base.url))
    kept = url_secret_names(base.url)
    legacy = _legacy_query_values(base.url)
    for key in url_secret_names(url):
        if key in query_values:
            secrets[("query", key)] = _secret(query_values[key], f"the URL parameter {key}")
        elif key in legacy:  # stored in the file by an older build: moves to the keyring now
            secrets[("query", key)] = legacy[key]
        elif key not in kept:
            raise ConfigError(f"enter a value for the URL parameter {key}")
    headers_in = dict(req.headers) if req.headers is not None else dict.fromkeys(base.header_names, MASK)
    if len(headers_in) > MAX_HEADERS:
        raise ConfigError(f"too many headers (at most {MAX_HEADERS})")
    credentials = [h for h in headers_in if is_credential_header(h)]
    if credentials and not (is_private_transport(url) or req.allow_plain_http_auth):
        raise ConfigError(
            f"the {credentials[0]} header would be sent unencrypted over http:// to another "
            "computer; use https://, or confirm it (allow_plain_http_auth, --allow-http-auth)"
        )
    for header, value in headers_in.items():
        check_header(header)
        if value != MASK:
            secrets[("header", header)] = _secret(value, header)
        elif header not in base.header_names:
            raise ConfigError(f"enter a value for the header {header}")
    header_names = tuple(headers_in)
    return {"url": url, "header_names": header_names, "command": "", "args": (), "env": {}, "secret_env": ()}


def _text(value: str, what: str) -> str:
    if len(value) > MAX_TEXT:
        raise ConfigError(f"{what} is too long (at most {MAX_TEXT} characters)")
    return value


def _secret(value: str, what: str) -> str:
    if not value or "\n" in value or "\r" in value:
        raise ConfigError(f"the value of {what} must be one non-empty line")
    if len(value) > MAX_SECRET_CHARS:
        raise ConfigError(f"the value of {what} is too long (at most {MAX_SECRET_CHARS} characters)")
    return value


def is_credential_header(name: str) -> bool:
    """Authorization, or a header named like a credential (X-Api-Key, Cookie, X-Auth-Token):
    the same plain-http confirmation for all of them (issue 33 item 15)."""
    auth = name.lower() in ("authorization", "proxy-authorization")
    return auth or SECRET_ENV_HINT.search(name) is not None


def is_private_transport(url: str) -> bool:
    """https://, or plain http:// to this computer (loopback never crosses the network)."""
    import ipaddress
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme == "https":
        return True
    host = (parts.hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def mask_url(url: str) -> str:
    """The URL for display: values of query parameters named like a credential are MASK."""
    from urllib.parse import parse_qsl, urlencode, urlsplit

    parts = urlsplit(url)
    if not parts.query:
        return url
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if not any(SECRET_ENV_HINT.search(k) for k, _ in pairs):
        return url
    masked = [(k, MASK if SECRET_ENV_HINT.search(k) else v) for k, v in pairs]
    return parts._replace(query=urlencode(masked, safe="*")).geturl()


def split_url_secrets(url: str) -> tuple[str, dict[str, str]]:
    """The URL as stored (credential-named query values replaced by MASK) and those values.

    The values go to the keyring like header values; `resolve` puts them back right before a
    connection. A MASK sent back by the edit form keeps the stored value."""
    from urllib.parse import parse_qsl, urlencode, urlsplit

    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    secret = [k for k, v in pairs if SECRET_ENV_HINT.search(k) and v]
    if not secret:
        return url, {}
    if len(set(secret)) != len(secret):
        raise ConfigError("a credential parameter appears twice in the URL")
    values = {k: v for k, v in pairs if k in secret and v != MASK}
    stored = [(k, MASK if k in secret else v) for k, v in pairs]
    return parts._replace(query=urlencode(stored, safe="*")).geturl(), values


def url_secret_names(url: str) -> list[str]:
    """The query parameters of a stored URL whose values live in the keyring."""
    from urllib.parse import parse_qsl, urlsplit

    return [k for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True) if v == MASK]


def join_url_secrets(url: str, values: Mapping[str, str]) -> str:
    """The stored URL with its keyring values put back (never shown, never logged)."""
    from urllib.parse import parse_qsl, urlencode, urlsplit

    if not values:
        return url
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    joined = [(k, (values.get(k) or v) if v == MASK else v) for k, v in pairs]
    return parts._replace(query=urlencode(joined)).geturl()


def _legacy_query_values(url: str) -> dict[str, str]:
    """Credential values an older build kept in servers.json itself."""
    return split_url_secrets(url)[1] if url else {}


def _to_json(e: ServerEntry) -> dict[str, Any]:
    return {
        "transport": e.transport,
        "display_name": e.display_name,
        "description": e.description,
        "url": e.url,
        "header_names": list(e.header_names),
        "command": e.command,
        "args": list(e.args),
        "env": dict(e.env),
        "secret_env": list(e.secret_env),
        "confirmed_launch": e.confirmed_launch,
        "sandbox": e.sandbox,
        "network": e.network,
    }


def _from_json(name: str, item: Any) -> ServerEntry:
    if not isinstance(item, dict):
        raise ConfigError(f"the catalog entry {name!r} is not an object")
    # An entry confirmed before the launch spec counted ("confirmed_argv") is asked once more.
    confirmed = item.get("confirmed_launch")
    return ServerEntry(
        name=check_name(name),
        transport=check_transport(str(item.get("transport", ""))),
        source="user",
        display_name=str(item.get("display_name", "")),
        description=str(item.get("description", "")),
        url=str(item.get("url", "")),
        header_names=tuple(str(h) for h in item.get("header_names", [])),
        command=str(item.get("command", "")),
        args=tuple(str(a) for a in item.get("args", [])),
        env={str(k): str(v) for k, v in dict(item.get("env", {})).items()},
        secret_env=tuple(str(k) for k in item.get("secret_env", [])),
        confirmed_launch=confirmed if isinstance(confirmed, str) else None,
        sandbox=item.get("sandbox") is True,
        network=item.get("network") is True,
    )
