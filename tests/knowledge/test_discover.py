"""Discovery follows git's rules for nested `.gitignore` files: each applies below its own
folder, with paths relative to it, and a deeper file decides last (a `!` there re-includes);
the scan and the one-path check (watcher events) agree."""

from __future__ import annotations

from pathlib import Path

from app.knowledge.discover import Discovery, Found


def test_nested_gitignores_apply_below_their_folder_relative_to_it(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    files = {
        ".gitignore": "/top.md\n*.tmp\ndocs/generated/\n",
        "top.md": "x",  # anchored at the root: ignored here…
        "sub/top.md": "x",  # …but not in a subfolder
        "a.tmp": "x",
        "sub/b.tmp": "x",  # unanchored: ignored at any depth
        "docs/generated/out.md": "x",
        "docs/guide.md": "x",
        "docs/.gitignore": "/draft.md\n!keep.tmp\nnotes/*.md\n",
        "docs/draft.md": "x",  # anchored at docs/
        "docs/sub/draft.md": "x",
        "docs/keep.tmp": "x",  # the deeper file re-includes it
        "docs/notes/n.md": "x",
        "docs/notes/n.txt": "x",
        "draft.md": "x",  # docs/'s rule does not reach above docs/
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    discovery = Discovery([root], [])
    scan = discovery.scan()
    found = sorted(Path(f.path).relative_to(root).as_posix() for f in scan.files)
    assert found == [
        "docs/guide.md",
        "docs/keep.tmp",
        "docs/notes/n.txt",
        "docs/sub/draft.md",
        "draft.md",
        "sub/top.md",
    ]
    reasons = {Path(s.path).relative_to(root).as_posix(): s.reason for s in scan.skipped}
    for ignored in ("top.md", "a.tmp", "sub/b.tmp", "docs/generated", "docs/draft.md", "docs/notes/n.md"):
        assert reasons[ignored] == "ignored by .gitignore", ignored
    for name in files:
        verdict = discovery.check(root / name)
        in_scan = isinstance(verdict, Found)
        assert in_scan == (name in found), name
