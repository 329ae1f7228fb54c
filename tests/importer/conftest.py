"""The API test fixtures (real app on temp dirs) plus the fake target routes."""

from tests.api.conftest import make_app, paths, secrets, workspace  # noqa: F401
from tests.importer.fakes import target_routes  # noqa: F401
