"""bench/bench_local_model.py without the real model: its arguments, that a plain run builds
nothing, and its measuring code against the scripted LLM (issue 34)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_local_model.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_local_model", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_arguments(bench: ModuleType) -> None:
    opts = bench.parse_args([])
    assert (opts.runs, opts.setup, opts.fake, opts.cache.name) == (3, False, False, ".bench-cache")
    opts = bench.parse_args(["--fake", "--runs", "2", "--cache", "/tmp/x"])
    assert (opts.runs, opts.fake, opts.cache) == (2, True, Path("/tmp/x"))
    for bad in (["--runs", "0"], ["--setup", "--fake"], ["--runs", "many"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)


def test_the_prefix_is_the_leading_system_messages_and_the_tools_json(bench: ModuleType) -> None:
    body = {
        "messages": [
            {"role": "system", "content": "abc"},
            {"role": "system", "content": "de"},
            {"role": "user", "content": "hello"},
            {"role": "system", "content": "not the prefix"},
        ],
        "tools": [{"type": "function"}],
    }
    assert bench.prefix_chars(body) == (5, len('[{"type": "function"}]'))


def test_a_plain_run_without_the_cache_measures_the_prefix_and_builds_nothing(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    assert bench.main(["--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "fixed prefix:" in out and "run with --setup" in out
    assert not cache.exists()  # no venv, no build


def test_the_measuring_code_against_the_scripted_llm(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.main(["--fake", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    prefix = re.search(r"\| \[(\d+)\] \| \1 \((\d+) \+ (\d+)\) \| ≤ 4,500 \| met \|", out)
    assert prefix is not None, out
    assert int(prefix[1]) == int(prefix[2]) + int(prefix[3]) <= 4_500
    assert len(re.findall(r"\| time to first token, turn \d", out)) == 3
    assert "turn outcomes: turn_done;" in out and "read_file ran in 1 of 1 chats" in out
