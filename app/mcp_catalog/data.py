"""Loading the curated catalog shipped in resources/mcp_catalog (from source and frozen)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from app.mcp_catalog.models import Catalog


class CatalogDataError(ValueError):
    """The shipped catalog file is missing or invalid (a packaging defect)."""


def catalog_path() -> Path:
    """`resources/mcp_catalog/catalog.json`: beside the `app` package from source and in the
    bundle (packaging/cashcode.spec ships resources/ whole)."""
    return Path(__file__).resolve().parents[2] / "resources" / "mcp_catalog" / "catalog.json"


def load_catalog(path: Path) -> Catalog:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogDataError(f"the MCP catalog {path} cannot be read ({exc.strerror})") from exc
    try:
        return Catalog.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CatalogDataError(f"the MCP catalog {path} is invalid: {where}: {first['msg']}") from exc
