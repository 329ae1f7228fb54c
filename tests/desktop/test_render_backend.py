"""The Qt Quick backend choice: software only without a GPU render node, the user's choice wins."""

from __future__ import annotations

from pathlib import Path

from app.desktop.render_backend import QUICK_BACKEND_VAR, choose_quick_backend, has_gpu_render_node


def _dri(tmp_path: Path, *nodes: str) -> Path:
    dri = tmp_path / "dri"
    dri.mkdir()
    for node in nodes:
        (dri / node).touch()
    return dri


def test_no_dri_folder_picks_the_software_backend(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    assert choose_quick_backend(env, tmp_path / "missing") == "software"
    assert env == {QUICK_BACKEND_VAR: "software"}


def test_a_card_without_a_render_node_is_no_gpu(tmp_path: Path) -> None:
    dri = _dri(tmp_path, "card0")
    assert not has_gpu_render_node(dri)
    env: dict[str, str] = {}
    assert choose_quick_backend(env, dri) == "software"


def test_a_render_node_keeps_opengl(tmp_path: Path) -> None:
    env: dict[str, str] = {"OTHER": "1"}
    assert choose_quick_backend(env, _dri(tmp_path, "card0", "renderD128")) is None
    assert env == {"OTHER": "1"}


def test_the_users_choice_wins(tmp_path: Path) -> None:
    for var, value in ((QUICK_BACKEND_VAR, "opengl"), ("QSG_RHI_BACKEND", "vulkan")):
        env = {var: value}
        assert choose_quick_backend(env, tmp_path / "missing") is None
        assert env == {var: value}
