"""`skill_search` ranking over a corpus shaped like the anthropics/skills collection (issue 22
item 8). That collection is not available offline, so its Skills are rebuilt here with their
names, their published descriptions and the headings of their SKILL.md bodies; the packages are
real folders scanned by the real catalog and searched through the `skill_search` tool."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.contracts.tools import ToolContext, ToolError
from app.skills.runtime import RuntimeConfig, SkillRuntime
from app.skills.tools import SkillSearchTool

from .helpers import write_skill

# name -> (description, headings of the body)
COLLECTION: dict[str, tuple[str, list[str]]] = {
    "pdf": (
        "Use this skill whenever the user wants to do anything with PDF files. This includes reading "
        "or extracting text/tables from PDFs, combining or merging multiple PDFs into one, splitting "
        "PDFs apart, rotating pages, adding watermarks, creating new PDFs, filling PDF forms, "
        "encrypting/decrypting PDFs, extracting images, and OCR on scanned PDFs to make them "
        "searchable. If the user mentions a .pdf file or asks to produce one, use this skill.",
        [
            "PDF Processing Guide",
            "Overview",
            "Quick Start",
            "Python Libraries",
            "pypdf - Basic Operations",
            "Merge PDFs",
            "Split PDF",
            "pdfplumber - Text and Table Extraction",
            "Command-Line Tools",
            "Common Tasks",
            "Password Protection",
            "Quick Reference",
        ],
    ),
    "canvas-design": (
        "Create beautiful visual art in .png and .pdf documents using design philosophy. You should "
        "use this skill when the user asks to create a poster, piece of art, design, or other static "
        "piece. Create original visual designs, never copying existing artists' work to avoid "
        "copyright violations.",
        ["Canvas Design", "Design Philosophy Creation", "Canvas Creation", "Final Step"],
    ),
    "docx": (
        "Comprehensive document creation, editing, and analysis with support for tracked changes, "
        "comments, formatting preservation, and text extraction. When Claude needs to work with "
        "professional documents (.docx files) for: (1) Creating new documents, (2) Modifying or "
        "editing content, (3) Working with tracked changes, (4) Adding comments, or any other "
        "document tasks",
        [
            "DOCX creation, editing, and analysis",
            "Overview",
            "Workflow Decision Tree",
            "Reading and analyzing content",
            "Creating a new Word document",
            "Redlining workflow",
        ],
    ),
    "xlsx": (
        "Comprehensive spreadsheet creation, editing, and analysis with support for formulas, "
        "formatting, data analysis, and visualization. When Claude needs to work with spreadsheets "
        "(.xlsx, .xlsm, .csv, .tsv, etc) for: (1) Creating new spreadsheets with formulas and "
        "formatting, (2) Reading or analyzing data, (3) Modify existing spreadsheets while "
        "preserving formulas, (4) Data analysis and visualization in spreadsheets, or (5) "
        "Recalculating formulas",
        [
            "Requirements for Outputs",
            "Financial models",
            "Reading and analyzing data",
            "Recalculating formulas",
            "Formula Verification Checklist",
        ],
    ),
    "pptx": (
        "Presentation creation, editing, and analysis. When Claude needs to work with presentations "
        "(.pptx files) for: (1) Creating new presentations, (2) Modifying or editing content, (3) "
        "Working with layouts, (4) Adding comments or speaker notes, or any other presentation tasks",
        [
            "PPTX creation, editing, and analysis",
            "Reading and analyzing content",
            "Creating a new PowerPoint presentation without a template",
            "Editing an existing presentation",
        ],
    ),
    "skill-creator": (
        "Guide for creating effective skills. This skill should be used when users want to create a "
        "new skill (or update an existing skill) that extends Claude's capabilities with specialized "
        "knowledge, workflows, or tool integrations.",
        [
            "Skill Creator",
            "About Skills",
            "Anatomy of a Skill",
            "Skill Creation Process",
            "Running and evaluating test cases",
            "Reviewing results with the eval viewer",
        ],
    ),
    "algorithmic-art": (
        "Creating algorithmic art using p5.js with seeded randomness and interactive parameter "
        "exploration. Use this when users request creating art using code, generative art, "
        "algorithmic art, flow fields, or particle systems. Create original algorithmic art rather "
        "than copying existing artists' work to avoid copyright violations.",
        ["Algorithmic Philosophy Creation", "P5.js Implementation", "Interactive Artifact Creation"],
    ),
    "brand-guidelines": (
        "Applies Anthropic's official brand colors and typography to any sort of artifact that may "
        "benefit from having Anthropic's look-and-feel. Use it when brand colors or style guidelines, "
        "visual formatting, or company design standards apply.",
        ["Anthropic Brand Styling", "Brand Guidelines", "Colors", "Typography", "Features"],
    ),
    "frontend-design": (
        "Create distinctive, production-grade frontend interfaces with high design quality. Use this "
        "skill when the user asks to build web components, pages, or applications. Generates "
        "creative, polished code that avoids generic AI aesthetics.",
        ["Design Thinking", "Frontend Aesthetics Guidelines"],
    ),
    "internal-comms": (
        "A set of resources to help me write all kinds of internal communications, using the formats "
        "that my company likes to use. Claude should use this skill whenever asked to write some sort "
        "of internal communications (status reports, leadership updates, 3P updates, company "
        "newsletters, FAQs, incident reports, project updates, etc.).",
        ["When to use this skill", "How to use this skill"],
    ),
    "mcp-builder": (
        "Guide for creating high-quality MCP (Model Context Protocol) servers that enable LLMs to "
        "interact with external services through well-designed tools. Use when building MCP servers "
        "to integrate external APIs or services, whether in Python (FastMCP) or Node/TypeScript "
        "(MCP SDK).",
        [
            "MCP Server Development Guide",
            "High-Level Workflow",
            "Phase 1: Deep Research and Planning",
            "Phase 4: Create Evaluations",
        ],
    ),
    "slack-gif-creator": (
        "Knowledge and utilities for creating animated GIFs optimized for Slack. Provides constraints, "
        "validation tools, and animation concepts. Use when users request animated GIFs for Slack "
        'like "make me a GIF of X doing Y for Slack."',
        ["Slack GIF Creator", "Slack Requirements", "Core Workflow", "Animation Concepts"],
    ),
    "theme-factory": (
        "Toolkit for styling artifacts with a theme. These artifacts can be slides, docs, reportings, "
        "HTML landing pages, etc. There are 10 pre-set themes with colors/fonts that you can apply to "
        "any artifact that has been creating, or can generate a new theme on-the-fly.",
        ["Theme Factory Skill", "Purpose", "Usage Instructions", "Themes Available"],
    ),
    "web-artifacts-builder": (
        "Suite of tools for creating elaborate, multi-component claude.ai HTML artifacts using modern "
        "frontend web technologies (React, Tailwind CSS, shadcn/ui). Use for complex artifacts "
        "requiring state management, routing, or shadcn/ui components - not for simple single-file "
        "HTML/JSX artifacts.",
        ["Web Artifacts Builder", "Design & Style Guidelines", "Quick Start"],
    ),
    "webapp-testing": (
        "Toolkit for interacting with and testing local web applications using Playwright. Supports "
        "verifying frontend functionality, debugging UI behavior, capturing browser screenshots, and "
        "viewing browser logs.",
        [
            "Web Application Testing",
            "Decision Tree: Choosing Your Approach",
            "Reconnaissance-Then-Action Pattern",
        ],
    ),
    "doc-coauthoring": (
        "Guide users through a structured workflow for co-authoring documentation. Use when user wants "
        "to write documentation, proposals, technical specs, decision docs, or similar structured "
        "content.",
        [
            "Doc Co-Authoring Workflow",
            "Stage 1: Context Gathering",
            "Stage 2: Refinement & Structure",
            "Stage 3: Reader Testing",
        ],
    ),
    "template-skill": (
        "Replace with description of the skill and when Claude should use it.",
        ["Insert instructions below"],
    ),
}


def _body(headings: list[str]) -> str:
    lines = [f"# {headings[0]}", "", "Follow the steps below.", ""]
    lines += [f"## {h}\n\nDetails.\n" for h in headings[1:]]
    lines += ["```bash", "# not a heading: fill form fields", "```"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def runtime(tmp_path: Path) -> SkillRuntime:
    root = tmp_path / "home" / ".claude" / "skills"
    for name, (description, headings) in COLLECTION.items():
        text = f"---\nname: {name}\ndescription: {description!r}\n---\n{_body(headings)}"
        write_skill(root, name, text)
    ws = tmp_path / "ws"
    ws.mkdir()
    config = RuntimeConfig(
        data_dir=tmp_path / "data",
        home=tmp_path / "home",
        workspace=lambda: ws,
        env={"PATH": os.environ.get("PATH", "")},
        builtin_dir=tmp_path / "builtin",
    )
    return SkillRuntime(config, None)


async def _search(rt: SkillRuntime, tmp_path: Path, **args: object) -> list[str]:
    tool = SkillSearchTool(rt)
    ctx = ToolContext(workspace=tmp_path / "ws", chat_id="c", turn_id="t")
    result = await tool.execute(await tool.prepare(args, ctx), ctx)
    return [line[2:].split(" [", 1)[0] for line in result.content.splitlines() if line.startswith("- ")]


def test_the_corpus_is_the_whole_collection(runtime: SkillRuntime) -> None:
    snapshot = runtime.snapshot()
    assert not snapshot.diagnostics
    assert sorted(e.name for e in snapshot.active()) == sorted(COLLECTION)


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("fill in the fields of a PDF form", "pdf"),
        ("merge two PDFs", "pdf"),
        ("design a poster", "canvas-design"),
        ("edit a Word document with tracked changes", "docx"),
        ("recalculate the formulas in a spreadsheet", "xlsx"),
        ("add speaker notes to my slides presentation", "pptx"),
        ("create a new skill", "skill-creator"),
        ("build an MCP server", "mcp-builder"),
        ("test my web app in a browser", "webapp-testing"),
    ],
)
async def test_the_right_skill_ranks_first(
    runtime: SkillRuntime, tmp_path: Path, query: str, first: str
) -> None:
    assert (await _search(runtime, tmp_path, query=query))[0] == first


async def test_headings_of_the_instructions_are_searched(runtime: SkillRuntime, tmp_path: Path) -> None:
    # "pdfplumber" and "Password Protection" appear only in pdf's headings; "Reader Testing"
    # only in doc-coauthoring's; the code block's "#" line is not a heading.
    assert (await _search(runtime, tmp_path, query="pdfplumber"))[:1] == ["pdf"]
    assert (await _search(runtime, tmp_path, query="password protection"))[:1] == ["pdf"]
    assert (await _search(runtime, tmp_path, query="reader testing"))[0] == "doc-coauthoring"
    entry = runtime.snapshot().get("pdf")
    assert entry is not None and "Quick Reference" in entry.headings
    assert all("not a heading" not in h for h in entry.headings)


async def test_limit_is_accepted_and_bounded(runtime: SkillRuntime, tmp_path: Path) -> None:
    assert len(await _search(runtime, tmp_path, query="create a new document or skill", limit=2)) == 2
    assert len(await _search(runtime, tmp_path, query="create a new document or skill")) == 8
    for bad in (0, 51, "3", True):
        with pytest.raises(ToolError, match="limit"):
            await _search(runtime, tmp_path, query="pdf", limit=bad)


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
async def test_a_blank_query_is_refused(runtime: SkillRuntime, tmp_path: Path, blank: str) -> None:
    with pytest.raises(ToolError, match="blank"):
        await _search(runtime, tmp_path, query=blank)
