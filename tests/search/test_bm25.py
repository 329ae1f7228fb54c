"""The shared tokeniser and BM25 index (used by tool_search and skill_search)."""

from __future__ import annotations

import math

from app.search.bm25 import K1, B, BM25Index, tokenize


def test_tokens_split_camel_and_snake_case_and_keep_the_whole_word() -> None:
    assert tokenize("say_hello") == ["say", "hello", "say_hello"]
    assert tokenize("getHTTPResponse2") == ["get", "http", "response", "2", "gethttpresponse2"]
    assert tokenize("kebab-case Plain") == ["kebab", "case", "kebab-case", "plain"]


def test_cjk_text_becomes_bigrams_and_a_single_character_stays() -> None:
    assert tokenize("读取文件") == ["读取", "取文", "文件"]
    assert tokenize("读 file") == ["读", "file"]


def test_search_ranks_by_bm25_with_the_specified_parameters() -> None:
    assert (K1, B) == (1.5, 0.75)
    index = BM25Index([("a", ["hello world"]), ("b", ["hello hello planet"]), ("c", ["other"])])
    hits = dict(index.search("hello", 10))
    assert set(hits) == {"a", "b"} and hits["b"] > hits["a"]
    # one document by hand: idf = ln(1 + (N - df + .5)/(df + .5)), avgdl = 5/3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    expected = idf * 1 * (K1 + 1) / (1 + K1 * (1 - B + B * 2 / (6 / 3)))
    assert math.isclose(hits["a"], expected)


def test_queries_match_across_case_styles_and_languages() -> None:
    index = BM25Index(
        [
            ("mcp_fs_readFile", ["readFile", "读取文件内容", "path"]),
            ("mcp_web_fetch_url", ["fetch_url", "Download a web page", "url"]),
        ]
    )
    assert index.search("read file", 1)[0][0] == "mcp_fs_readFile"
    assert index.search("文件", 1)[0][0] == "mcp_fs_readFile"
    assert index.search("FetchUrl", 1)[0][0] == "mcp_web_fetch_url"
    assert index.search("", 5) == [] and index.search("nothing-like-it", 5) == []
    assert index.search("url", 0) == []
