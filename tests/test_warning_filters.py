"""pyproject's pytest `filterwarnings`: a warning from the project's own code fails the test,
one from elsewhere does not. Each probe warns from code whose module name is the one given, as
if that module had called `warnings.warn`."""

from __future__ import annotations

import warnings

import pytest

PROBE = "import warnings\nwarnings.warn('an old way', DeprecationWarning)\n"


def warn_from(module: str) -> None:
    exec(compile(PROBE, f"<{module}>", "exec"), {"__name__": module})


@pytest.mark.parametrize("module", ["app.core.loop", "app", "tests.core.helpers"])
def test_a_warning_from_the_projects_code_is_an_error(module: str) -> None:
    with pytest.raises(DeprecationWarning, match="an old way"):
        warn_from(module)


@pytest.mark.parametrize("module", ["httpx2._client", "application", "testsuite"])
def test_a_warning_from_other_code_is_only_reported(module: str) -> None:
    with warnings.catch_warnings(record=True) as seen:  # keeps the configured filters
        warn_from(module)
    assert [str(w.message) for w in seen] == ["an old way"]
