"""web_fetch asks per host: Deny / Once / Always for this host; modes keep their meaning."""

from __future__ import annotations

import ipaddress

from app.contracts.tools import GrantKey, ToolContext
from app.tools.approvals import Allow, Ask, Deny, Mode, decide
from app.tools.ssrf import IPAddress
from app.tools.web import WebFetchTool

from .conftest import MemoryLedger


async def public(host: str, port: int) -> list[IPAddress]:
    return [ipaddress.ip_address("93.184.216.34")]


async def decision(url: str, ctx: ToolContext, ledger: MemoryLedger, mode: Mode = "ask_writes") -> object:
    tool = WebFetchTool(resolver=public)
    prepared = await tool.prepare({"url": url}, ctx)
    return decide(tool, prepared, mode=mode, policies={}, ledger=ledger)


async def test_a_fetch_asks_with_the_whole_url_and_offers_always_for_the_host(
    ctx: ToolContext, ledger: MemoryLedger
) -> None:
    result = await decision("https://Example.COM./leak?data=secret", ctx, ledger)
    assert isinstance(result, Ask)
    assert "https://Example.COM./leak?data=secret" in result.approval.detail
    assert result.approval.grant_key == GrantKey(kind="web_host", key=("example.com",))


async def test_a_host_grant_covers_that_host_only(ctx: ToolContext, ledger: MemoryLedger) -> None:
    ledger.add(GrantKey(kind="web_host", key=("example.com",)))
    assert await decision("https://example.com/a", ctx, ledger) == Allow("granted")
    assert await decision("http://EXAMPLE.com:8080/b", ctx, ledger) == Allow("granted")
    assert isinstance(await decision("https://evil.example.net/?q=x", ctx, ledger), Ask)
    assert isinstance(await decision("https://sub.example.com/", ctx, ledger), Ask)


async def test_autonomous_runs_and_read_only_fetches_granted_hosts_only(
    ctx: ToolContext, ledger: MemoryLedger
) -> None:
    assert await decision("https://example.com/", ctx, ledger, "autonomous") == Allow("autonomous")
    assert isinstance(await decision("https://example.com/", ctx, ledger, "read_only"), Deny)
    ledger.add(GrantKey(kind="web_host", key=("example.com",)))
    assert await decision("https://example.com/", ctx, ledger, "read_only") == Allow("granted")
    assert isinstance(await decision("https://other.example/", ctx, ledger, "read_only"), Deny)
