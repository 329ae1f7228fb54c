"""The shared tokeniser and BM25 index (used by tool_search and skill_search)."""

from __future__ import annotations

import math

from app.search.bm25 import K1, B, BM25Index, token_text, tokenize


def test_tokens_split_camel_and_snake_case_and_keep_the_whole_word() -> None:
    assert tokenize("say_hello") == ["say", "hello", "say_hello"]
    assert tokenize("getHTTPResponse2") == ["get", "http", "respons", "gethttpresponse2"]  # no "2"
    assert tokenize("kebab-case Plain") == ["kebab", "case", "kebab-case", "plain"]


def test_cjk_text_becomes_bigrams_and_a_lone_character_is_dropped() -> None:
    assert tokenize("读取文件") == ["读取", "取文", "文件"]
    # Issue 40 item 15: "读" alone would match every text that has it.
    assert tokenize("读 file") == ["file"]


def test_one_character_tokens_are_dropped_and_full_width_latin_is_latin() -> None:
    assert tokenize("a x 1 b") == []
    assert tokenize("ｆｉｌｅ ＲＥＡＤ＿ＦＩＬＥ ２０２６") == tokenize("file READ_FILE 2026")
    assert token_text("a ｆｏｒｍｓ 表") == "form"
    index = BM25Index([("a", ["a list of files"]), ("b", ["x marks 中 the spot"])])
    assert index.search("a", 5) == [] and index.search("中", 5) == [] and index.search("x", 5) == []
    assert index.search("ＦＩＬＥＳ", 5)[0][0] == "a"


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


def test_english_words_are_stemmed_so_word_forms_meet() -> None:
    stems = ["fill", "in", "the", "field", "of", "pdf", "form"]
    assert tokenize("Fill in the fields of a PDF form") == stems
    assert tokenize("filling forms") == tokenize("fill form") == ["fill", "form"]
    assert tokenize("running tests") == ["run", "test"]
    index = BM25Index([("forms", ["Filling in PDF forms"]), ("other", ["Draw a picture"])])
    assert index.search("fill the form field", 1)[0][0] == "forms"


def test_stemming_leaves_identifiers_cjk_digits_and_short_words_as_they_were() -> None:
    # split names: the parts are stemmed, the whole identifier stays as written
    assert tokenize("list_files") == ["list", "file", "list_files"]
    assert tokenize("readFiles") == ["read", "file", "readfiles"]
    assert tokenize("fill-forms") == ["fill", "form", "fill-forms"]
    # a single word is only its stem (no duplicate of the original form)
    assert tokenize("Forms") == ["form"]
    # CJK bigrams, digit runs and words of two letters are not touched
    assert tokenize("填写表单 forms") == ["填写", "写表", "表单", "form"]
    assert tokenize("v2 is ok 2026") == ["v2", "is", "ok", "2026"]  # not the one-character parts


def test_the_ending_filter_never_skips_a_word_the_stemmer_would_change() -> None:
    # `stem` skips the stemmer for words without a changeable ending; the stemmer itself must
    # agree for every such word: all three-letter words and 20,000 seeded random longer ones,
    # plus English words of every kind of ending.
    import itertools
    import random
    import string

    import snowballstemmer

    from app.search import bm25

    real = snowballstemmer.stemmer("english")
    rng = random.Random(22)
    words = ["".join(w) for w in itertools.product(string.ascii_lowercase, repeat=3)]
    words += ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 12))) for _ in range(20_000)]
    words += [
        "generously",
        "happy",
        "skies",
        "dying",
        "news",
        "atlas",
        "herring",
        "proceed",
        "gently",
        "only",
        "sky",
    ]
    words += ["early", "idly", "formalism", "hopeful", "rational", "sensitiviti", "possibly", "electrical"]
    words += ["adjustable", "communism"]
    for word in words:
        if not word.endswith(bm25._CHANGEABLE_ENDINGS):
            assert real.stemWord(word) == word, word
        assert bm25.stem(word) == real.stemWord(word), word
