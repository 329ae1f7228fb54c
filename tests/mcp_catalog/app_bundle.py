"""An MCP Bundle whose server declares MCP Apps: the repo's App test server
(tests/mcp/servers/app_server.py) packed as a `binary` bundle whose program is that script with a
first line naming this test run's Python (a virtual environment's, so the sandbox lets the
server read that environment's packages, the MCP SDK among them)."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

APP_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "app_server.py"
DECLARED = "https://tiles.example.com"


def app_bundle(path: Path, *, permissions: str = "camera") -> Path:
    """`app-kit`: its one App tool declares DECLARED and `permissions`."""
    manifest = {
        "manifest_version": "0.3",
        "name": "app-kit",
        "display_name": "App Kit",
        "version": "1.2.0",
        "description": "A server with an App",
        "author": {"name": "Test Author"},
        "server": {
            "type": "binary",
            "entry_point": "server/app-server",
            "mcp_config": {
                "command": "${__dirname}/server/app-server",
                "args": ["--declared", DECLARED, "--permissions", permissions],
            },
        },
        "tools": [{"name": "show_probe", "description": "Show the probe App"}],
    }
    program = f"#!{sys.executable}\n" + APP_SERVER.read_text(encoding="utf-8")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.json", json.dumps(manifest))
        info = zipfile.ZipInfo("server/app-server")
        info.external_attr = 0o755 << 16
        z.writestr(info, program)
    return path
