"""Issue 33.6 and 33.7: files a cloned repo or a shared folder can hold. Pathological lines
parse in linear time (a heading line holding a long run of spaces froze every `serve` route;
unclosed comments and elements in HTML were quadratic), the app answers while such a file
indexes, and a file that is not what the scan saw (a hard link to a file outside the folder, a
link or FIFO swapped in, a file grown past the cap, a broken or bomb `.docx`) fails only
itself. Through `cashcode kb` and `cashcode serve`; the read rules also directly on
`read_job`, which is what every run (in-process or in a worker) calls per file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.knowledge import prepare
from app.knowledge.prepare import Failed, Job, Prepared, read_job
from tests.cli.conftest import base_env, cashcode
from tests.server.process import isolated_env, serve_process

HANG_S = 120  # a hang bound, not a speed check: the old code took hours on the 100 KB line
SPACES_15K = "# alpha" + " " * 1500 + "omega"
SPACES_100K = "# gamma" + " " * 100_000 + "delta"


def pathological(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "short.md").write_text(f"{SPACES_15K}\n\nbody text\n", encoding="utf-8")
    (root / "long.md").write_text(f"{SPACES_100K}\n", encoding="utf-8")
    (root / "comments.html").write_text("<p>visible kappa</p>" + "<!--" * 25_000, encoding="utf-8")
    (root / "scripts.html").write_text("<p>visible lambda</p>" + "<script" * 15_000, encoding="utf-8")
    (root / "tags.htm").write_text("<p>visible mu</p>" + "<a" * 50_000, encoding="utf-8")
    return root


def _search(env: dict[str, str], cwd: Path, query: str) -> set[str]:
    """The names of the files whose passages match `query`."""
    done = cashcode("kb", "search", query, "--json", env=env, cwd=cwd, timeout=HANG_S)
    assert done.returncode == 0, done.stderr
    return {Path(h["path"]).name for h in json.loads(done.stdout)}


def test_pathological_lines_index_without_hanging(tmp_path: Path) -> None:
    root = pathological(tmp_path / "docs")
    env = base_env(tmp_path)
    added = cashcode("kb", "add", str(root), env=env, cwd=tmp_path, timeout=HANG_S)
    assert added.returncode == 0, added.stderr
    assert "5 file(s) indexed" in added.stdout
    assert _search(env, tmp_path, "omega") == {"short.md"}
    assert _search(env, tmp_path, "delta") == {"long.md"}
    assert _search(env, tmp_path, "kappa") == {"comments.html"}
    assert _search(env, tmp_path, "lambda") == {"scripts.html"}


@pytest.mark.timeout(300)
def test_serve_answers_while_a_pathological_file_indexes(tmp_path: Path) -> None:
    env = isolated_env(tmp_path, {"CASHCODE_DREAM": "off"})
    root = pathological(tmp_path / "docs")
    with serve_process(["--no-open", "--port", "0"], env) as served:
        added: list[Any] = []

        def add() -> None:
            with httpx2.Client(base_url=served.base_url, trust_env=False, timeout=HANG_S) as client:
                body = {"path": str(root), "name": "Docs"}
                added.append(
                    client.post("/api/invoke/knowledge.add", json=body, headers=served.bearer).json()
                )

        adding = threading.Thread(target=add, daemon=True)
        adding.start()
        with httpx2.Client(base_url=served.base_url, trust_env=False, timeout=30) as client:
            for _ in range(5):  # while the run goes on (or after it ended: then trivially)
                reply = client.post("/api/invoke/settings.get", json={}, headers=served.bearer).json()
                assert reply["ok"], reply
        adding.join(HANG_S)
        assert not adding.is_alive(), "knowledge.add hung"
    assert added[0]["ok"] and added[0]["data"]["run"]["indexed"] == 5, added


# --- what a file is when it is read (issue 33.7) ---


def test_a_hard_link_to_a_file_outside_the_folder_is_not_indexed(tmp_path: Path) -> None:
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.md").write_text("the launch code is zebracorn\n", encoding="utf-8")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "plain.md").write_text("an ordinary note\n", encoding="utf-8")
    os.link(outside / "secret.md", folder / "innocent.md")
    env = base_env(tmp_path)
    added = cashcode("kb", "add", str(folder), env=env, cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    assert "1 file(s) indexed" in added.stdout and "1 skipped" in added.stdout
    assert _search(env, tmp_path, "zebracorn") == set()
    assert _search(env, tmp_path, "ordinary") == {"plain.md"}


def test_read_job_refuses_a_swapped_link_a_hard_link_and_a_grown_file(tmp_path: Path) -> None:
    target = tmp_path / "target.md"
    target.write_text("# Target\n\nsecret words\n", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    linked = read_job(Job(str(link), 0, None))
    assert isinstance(linked, Failed)
    os.link(target, tmp_path / "twin.md")
    twin = read_job(Job(str(tmp_path / "twin.md"), 0, None))
    assert isinstance(twin, Failed) and "hard link" in twin.reason
    os.unlink(tmp_path / "twin.md")
    grown = read_job(Job(str(target), 0, None, cap=10))
    assert isinstance(grown, Failed) and "larger than" in grown.reason
    assert isinstance(read_job(Job(str(target), 0, None)), Prepared)


def test_a_file_swapped_for_a_fifo_is_skipped_without_blocking(tmp_path: Path) -> None:
    """A FIFO with no writer: an `open` for reading waits for one forever (the old reader did).
    Run in a child process so a hang is a timeout, not a stuck test."""
    fifo = tmp_path / "swapped.md"
    os.mkfifo(fifo)
    code = (
        "import sys\n"
        "from app.knowledge.prepare import Job, read_job\n"
        "from app.knowledge.extract import looks_binary\n"
        "print(type(read_job(Job(sys.argv[1], 0, None))).__name__, looks_binary(sys.argv[1]))\n"
    )
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code, str(fifo)], cwd=repo, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["Failed", "True"], done.stderr


def _docx(body_xml: str, extra: bytes = b"") -> bytes:
    """A .docx made by python-docx with its document part replaced."""
    import docx

    out = io.BytesIO()
    docx.Document().save(out)
    source = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    result = io.BytesIO()
    with zipfile.ZipFile(result, "w", zipfile.ZIP_DEFLATED) as z:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                data = body_xml.encode() + extra
            z.writestr(item, data, compress_type=zipfile.ZIP_DEFLATED)
    return result.getvalue()


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def test_a_broken_docx_fails_only_itself_and_a_docx_bomb_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    good = f"<w:document {W}><w:body><w:p><w:r><w:t>quokka report</w:t></w:r></w:p></w:body></w:document>"
    (folder / "good.docx").write_bytes(_docx(good))
    (folder / "broken.docx").write_bytes(_docx(f"<w:document {W}><w:body><w:p>"))  # cut XML
    (folder / "bomb.docx").write_bytes(
        _docx(good[: -len("</w:document>")], b" " * 40_000_000 + b"</w:document>")
    )
    (folder / "note.md").write_text("a plain wombat note\n", encoding="utf-8")
    assert (folder / "bomb.docx").stat().st_size < 200_000
    env = base_env(tmp_path)
    added = cashcode("kb", "add", str(folder), env=env, cwd=tmp_path, timeout=HANG_S)
    assert added.returncode == 0, added.stderr
    assert "2 file(s) indexed" in added.stdout and "2 skipped" in added.stdout, added.stdout
    assert _search(env, tmp_path, "quokka") == {"good.docx"}
    assert _search(env, tmp_path, "wombat") == {"note.md"}
    bomb = read_job(Job(str(folder / "bomb.docx"), 0, None))
    assert isinstance(bomb, Failed) and "20x" in bomb.reason


def test_a_file_past_the_time_limit_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "many.md"
    path.write_text("line\n" * 5000, encoding="utf-8")
    monkeypatch.setattr(prepare, "FILE_SECONDS", -1.0)  # the limit has passed as the read starts
    slow = read_job(Job(str(path), 0, None))
    assert isinstance(slow, Failed) and slow.reason == "took too long to read"
