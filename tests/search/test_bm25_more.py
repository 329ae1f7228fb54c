"""BM25 ranking cases from the Skills side (the tokeniser itself is covered in test_bm25.py)."""

from __future__ import annotations

from app.search.bm25 import BM25Index


def test_bm25_ranks_the_best_match_first_and_limits() -> None:
    index = BM25Index(
        [
            ("pdf", ["pdf tools", "Extract text and tables from PDF files"]),
            ("docx", ["docx", "Word documents; can export to PDF"]),
            ("zh", ["表格", "处理表格文件"]),
            ("git", ["gitHelper", "Review commits"]),
        ]
    )
    hits = index.search("pdf tables", 10)
    assert [h[0] for h in hits] == ["pdf", "docx"] and hits[0][1] > hits[1][1] > 0
    assert [h[0] for h in index.search("表格", 5)] == ["zh"]
    assert [h[0] for h in index.search("helper", 5)] == ["git"]
    assert index.search("pdf", 1) == hits[:1] or index.search("pdf", 1)[0][0] == "pdf"
    assert index.search("", 5) == [] and index.search("nothing", 5) == []
    assert len(index) == 4 and BM25Index([]).search("pdf", 3) == []


def test_token_text_is_the_tokens_joined_by_spaces() -> None:
    # What the knowledge index stores; built without the intermediate list (bench_knowledge.py).
    from app.search.bm25 import token_text, tokenize

    samples = [
        "",
        "_ - __ -- _-_",
        "Install the frobnicator quietly: getHTTPResponse2 say_hello forms-fill",
        "知识库可以离线搜索文件。 mixed 中文 and English, naïve café Ünïcode",
        "line one\nline two\n\n  def parse_config_file(path):\n      return 42",
        "a_ _b -c d- x__y--z 3.14 v2_beta",
    ]
    for text in samples:
        assert token_text(text) == " ".join(tokenize(text))
