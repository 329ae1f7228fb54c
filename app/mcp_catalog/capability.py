"""The MCP catalog capability: routes only (built on the first mcp_catalog.* call)."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from app.contracts.capability import Capability, Handler

if TYPE_CHECKING:
    from app.host.host import Host
    from app.mcp_catalog.installer import Installer
    from app.mcp_catalog.registry_service import RegistryService
    from app.mcp_catalog.service import CatalogService

# Tests point uv's and npm's download caches at a folder kept between runs (the installs
# themselves always go to the app's cache).
ENV_DOWNLOADS = "CASHCODE_MCP_DOWNLOAD_CACHE"


class McpCatalogCapability(Capability):
    name = "mcp_catalog"

    def __init__(self, host: Host) -> None:
        self._host = host
        self._installer: Installer
        self._curated_ids: frozenset[str] = frozenset()

    @functools.cached_property
    def service(self) -> CatalogService:
        from app.mcp_catalog.data import catalog_path, load_catalog
        from app.mcp_catalog.inputs import Places
        from app.mcp_catalog.installer import Installer
        from app.mcp_catalog.service import CatalogService
        from app.mcp_catalog.toolchain import find_toolchain

        host = self._host
        # Package managers need the user's whole environment (PATH, proxy, index settings);
        # the app's own env mapping may be a reduced one (tests), so this is the process's.
        process_env: Mapping[str, str] = dict(os.environ)
        env = {**process_env, **host.env}
        downloads = (
            Path(env[ENV_DOWNLOADS]) if env.get(ENV_DOWNLOADS) else host.paths.cache_dir / "mcp_downloads"
        )
        installer = Installer(host.paths.cache_dir / "mcp_servers", downloads, find_toolchain(env), env)
        self._installer = installer  # shared with the registry (app/mcp_catalog/registry_service.py)

        def places(server: str) -> Places:
            return Places(
                home=Path.home(),
                workspace=host.workspace(),
                data=host.paths.data_dir / "mcp_catalog" / server,
            )

        from app.mcp_catalog.bundle_inputs import SystemDirs
        from app.mcp_catalog.bundle_service import BundleService

        uploads = host.paths.cache_dir / "mcp_bundle_uploads"
        from app.contracts.mcp_apps import probe_timeout
        from app.mcp.app_probe import Prober
        from app.mcp.sandboxed import sandbox_source

        # A bundle's preview asks its server for its Apps, started once in the sandbox.
        prober = Prober(
            sandbox_source(host.paths, host.settings, host.env, host.workspace), probe_timeout(host.env)
        )
        bundles = BundleService(
            installer,
            host.app,
            host.publish,
            SystemDirs(Path.home()),
            uploads,
            prober=prober,
            probes=host.paths.cache_dir / "mcp_probe",
        )
        self._bundles, self._uploads = bundles, uploads  # the registry installs mcpb packages with it
        catalog = load_catalog(catalog_path())
        self._curated_ids = frozenset(e.id for e in catalog.servers)  # registry ids never take one
        return CatalogService(catalog, installer, host.app, host.publish, places, bundles=bundles)

    @functools.cached_property
    def registry(self) -> RegistryService:
        from app.host.host import SectionStore
        from app.mcp_catalog.prefs import McpCatalogPrefs
        from app.mcp_catalog.registry import RegistryClient
        from app.mcp_catalog.registry_cache import RegistryCache
        from app.mcp_catalog.registry_service import RegistryService

        host = self._host
        _ = self.service  # builds the installer both share
        return RegistryService(
            SectionStore(host.settings, "mcp_catalog", McpCatalogPrefs),
            host.env,
            RegistryCache(host.paths.cache_dir / "mcp_registry"),
            RegistryClient,
            self._installer,
            host.app,
            host.publish,
            reserved=self._curated_ids,
            bundles=self._bundles,
            downloads=self._uploads,
        )

    def _handler(self, route: str) -> Handler:
        if route.startswith("mcp_catalog.registry."):
            handler: Handler = self.registry.handlers()[route]
        else:
            handler = self.service.handlers()[route]
        return handler

    def routes(self) -> Mapping[str, Handler]:
        """Handlers that build the service (and read the catalog file) on their first call:
        listing the app's routes must neither read files nor fail."""
        from app.mcp_catalog.api_routes import ROUTE_TYPES

        return {name: self._lazy(name) for name in ROUTE_TYPES}

    def _lazy(self, route: str) -> Handler:
        async def run(req: Any) -> BaseModel:
            from app.contracts.errors import ApiFailure, said
            from app.mcp_catalog.data import CatalogDataError

            try:
                handler = self._handler(route)
            except CatalogDataError as exc:
                raise ApiFailure("internal", said(exc)) from None
            result: BaseModel = await handler(req)
            return result

        return run
