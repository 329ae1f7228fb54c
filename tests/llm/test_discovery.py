"""Model discovery for every provider kind."""

from __future__ import annotations

import pytest

from app.contracts.provider import ModelInfo, ProviderError
from app.testing.fake_llm import FakeLLMServer
from tests.llm.conftest import API_KEY, OLLAMA_VARIANTS, OPENAI_VARIANTS, ProviderMaker


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_openai_kinds_list_the_servers_models(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    models = await make_provider(variant).list_models()
    assert [m.id for m in models] == ["fake-model", "fake-tools", "fake-vision"]
    (req,) = server.requests
    assert req.path == "/v1/models" and req.key_valid


@pytest.mark.parametrize("variant", OPENAI_VARIANTS)
async def test_listing_models_with_a_wrong_key_is_an_auth_error(
    variant: str, make_provider: ProviderMaker
) -> None:
    with pytest.raises(ProviderError) as info:
        await make_provider(variant, api_key="sk-nope-0000000000").list_models()
    assert info.value.code == "auth"
    assert API_KEY not in info.value.message


@pytest.mark.parametrize("variant", OLLAMA_VARIANTS)
async def test_ollama_discovery_reports_tools_and_vision_capabilities(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    models = await make_provider(variant).list_models()
    assert models == [
        ModelInfo(id="fake-model", supports_tools=True, supports_vision=False, context_length=8192),
        ModelInfo(id="fake-tools", supports_tools=True, supports_vision=False, context_length=8192),
        ModelInfo(id="fake-vision", supports_tools=False, supports_vision=True, context_length=8192),
    ]
    assert {r.path for r in server.requests} == {"/api/tags", "/api/show"}


async def test_ollama_accepts_its_v1_url_as_the_base(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    models = await make_provider("ollama_native", base_url=server.base_url + "/v1/").list_models()
    assert len(models) == 3


def test_ollama_urls_are_normalised_to_the_host_root() -> None:
    from app.llm.ollama import ollama_root

    assert ollama_root("http://localhost:11434/v1/") == "http://localhost:11434"
    assert ollama_root("localhost:11434") == "http://localhost:11434"
    assert ollama_root("") == "http://127.0.0.1:11434"


def test_discovering_models_does_not_import_the_openai_sdk(server: FakeLLMServer) -> None:
    # The UI lists models at start-up; an idle window must not pay for the SDK (bench/README.md).
    import subprocess
    import sys

    script = (
        "import asyncio, sys\n"
        "from app.contracts.provider import ProviderConfig, ProviderKind\n"
        "from app.llm.factory import create_provider\n"
        "cfg = ProviderConfig(id='p', kind=ProviderKind.CHAT_COMPLETIONS,"
        f" base_url={server.openai_base_url!r}, api_key={API_KEY!r})\n"
        "models = asyncio.run(create_provider(cfg).list_models())\n"
        "print(len(models), 'openai' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "False"]
