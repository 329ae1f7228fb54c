"""One tool output budget that every tool pages within (issue 22 item 1), driven by the scripted
LLM over real HTTP: what the model receives is checked in the fake LLM's recorded requests."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from app.contracts.tools import TOOL_OUTPUT_BUDGET
from app.settings.paths import AppPaths
from app.support.paging import page_chars
from tests.api.conftest import AppMaker, ok, send
from tests.api.conftest import add_provider as _add_provider
from tests.api.test_skills_runtime import _tool, _tool_contents, _write_skill

LINE = 99  # characters of each line before its newline


def _numbered(lines: int, tag: str) -> str:
    return "".join(f"{tag}{i:06d}".ljust(LINE, ".") + "\n" for i in range(1, lines + 1))


def _page_offsets(lines: int) -> list[int]:
    """The offsets a model following the markers asks for: pages of whole 100-char lines."""
    per_page = page_chars(TOOL_OUTPUT_BUDGET) // (LINE + 1)
    return list(range(1, lines + 1, per_page))


def _without_marker(content: str) -> str:
    """The page's own text: without the closing marker and the `[text file …]` size header that
    skill_read_resource puts first (issue 40 item 12)."""
    content = re.sub(r"^\[text file '[^'\n]*', [\d,]+ bytes, \d+ lines?\]\n", "", content)
    return re.sub(r"\n\[truncated: [^\n]*\]$", "", content)


async def _run(make_app: AppMaker, fake_llm: Any, *steps: Any) -> list[str]:
    app, events = await make_app()
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await _add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(*steps, {"text": "done"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "go", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    return _tool_contents(fake_llm.model_requests()[-1])


async def test_a_60000_character_file_reaches_the_model_whole_through_read_file_pages(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    text = _numbered(600, "L") + "THE LAST LINE\n"
    assert len(text) > 60_000
    (workspace / "big.txt").write_text(text)
    offsets = _page_offsets(601)
    contents = await _run(
        make_app, fake_llm, *(_tool("read_file", path="big.txt", offset=o) for o in offsets)
    )
    assert len(contents) == len(offsets) > 3
    for content, following in zip(contents, [*offsets[1:], None], strict=True):
        assert len(content) <= TOOL_OUTPUT_BUDGET
        if following is not None:  # each page names exactly the offset the next call used
            assert content.endswith(f"continue with read_file path='big.txt' offset={following}]")
    assert "".join(_without_marker(c) for c in contents) == text
    assert contents[-1].endswith("THE LAST LINE\n")


async def test_exec_with_100kb_of_stdout_shows_the_model_the_error_line_and_the_exit_code(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    code = (
        "import sys; sys.stdout.write('o' * 100_000 + '\\n'); sys.stdout.flush(); "
        "sys.stderr.write('fatal: the real error line\\n'); sys.exit(3)"
    )
    (contents,) = await _run(make_app, fake_llm, _tool("exec", argv=[sys.executable, "-c", code]))
    assert len(contents) <= TOOL_OUTPUT_BUDGET
    assert contents.startswith("Exit code: 3")
    assert "fatal: the real error line" in contents
    assert "bytes left out here (100001 bytes in all" in contents


async def test_a_long_skill_md_and_a_long_reference_reach_the_model_whole_in_pages(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    body = "# Long\n\n" + _numbered(450, "B") + "END OF THE INSTRUCTIONS\n"
    reference = _numbered(500, "R") + "END OF THE REFERENCE\n"
    assert len(body) > TOOL_OUTPUT_BUDGET * 2 and len(reference) > TOOL_OUTPUT_BUDGET * 2
    pkg = _write_skill(
        paths.data_dir / "skills" / "user",
        "longskill",
        description="A Skill whose instructions and reference are longer than one page.",
        body=body,
        files={"references/long.md": reference},
    )
    skill_md = (pkg / "SKILL.md").read_text()
    app, events = await make_app()
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await _add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")

    async def turn(*steps: Any) -> list[str]:
        fake_llm.script(*steps, {"text": "done"})
        turn_id = await send(app, chat["id"], "go", pid)
        assert (await events.turn_end(turn_id)).type == "turn_done"
        return _tool_contents(fake_llm.model_requests()[-1])[-len(steps) :]

    # skill_load's first page ends with the SKILL.md line to go on from.
    (loaded,) = await turn(_tool("skill_load", name="longskill"))
    assert len(loaded) <= TOOL_OUTPUT_BUDGET
    found = re.search(
        r"continue with skill_read_resource name='longskill' path='SKILL.md' offset=(\d+)\]", loaded
    )
    assert found is not None and "read the rest before you act on them" in loaded
    md_lines = skill_md.splitlines(keepends=True)
    md_offsets = list(
        range(int(found.group(1)), len(md_lines) + 1, page_chars(TOOL_OUTPUT_BUDGET) // (LINE + 1))
    )
    ref_offsets = _page_offsets(501)
    contents = await turn(
        *(_tool("skill_read_resource", name="longskill", path="SKILL.md", offset=o) for o in md_offsets),
        *(
            _tool("skill_read_resource", name="longskill", path="references/long.md", offset=o)
            for o in ref_offsets
        ),
    )
    assert all(len(c) <= TOOL_OUTPUT_BUDGET for c in contents)
    md_pages, ref_pages = contents[: len(md_offsets)], contents[len(md_offsets) :]
    shown_body = loaded.split('source="user">\n', 1)[1].split("\n</skill>", 1)[0]
    rest = "".join(_without_marker(c) for c in md_pages)
    assert (shown_body + "\n" + rest).rstrip() == body.rstrip()
    assert md_pages[-1].rstrip().endswith("END OF THE INSTRUCTIONS")
    assert "".join(_without_marker(c) for c in ref_pages) == reference
    for content, following in zip(ref_pages, [*ref_offsets[1:], None], strict=True):
        if following is not None:
            assert content.endswith(f"path='references/long.md' offset={following}]")
