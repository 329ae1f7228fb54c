"""`cashcode evals run FILE`: run eval cases one at a time, one PASS/FAIL line each.

Exit 0 when all pass, 1 when any fails (or the run cannot start), 2 on a malformed file.
The app is built exactly as for `cashcode ask` (same providers and config layering)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.runtime import CliError, add_model_flags, fail

if TYPE_CHECKING:
    from app.observability.evals_file import EvalCase

EXIT_MALFORMED = 2


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("evals", help="run eval cases from a YAML or JSON file")
    sub = parser.add_subparsers(dest="evals_command", required=True)
    run_parser = sub.add_parser("run", help="run every case of FILE and report PASS/FAIL")
    run_parser.add_argument("file", type=Path, help="the eval file (.yaml, .yml or .json)")
    run_parser.add_argument("--json", action="store_true", help="print the results as JSON")
    add_model_flags(run_parser)
    run_parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.cli.input_file import InputFileError, read_input_file
    from app.observability.evals_file import MAX_FILE_BYTES, EvalFileError, load_eval_file

    try:
        cases = load_eval_file(args.file, read_input_file(args.file, MAX_FILE_BYTES))
    except (EvalFileError, InputFileError) as exc:
        print(f"cashcode: error: {exc}", file=sys.stderr)
        return EXIT_MALFORMED
    return asyncio.run(_run(args, cases))


async def _run(args: argparse.Namespace, cases: list[EvalCase]) -> int:
    from app.cli.runtime import open_session
    from app.observability.evals import CaseResult, run_case

    try:
        session = open_session(args, os.environ)
    except CliError as exc:
        return fail(str(exc))
    results: list[CaseResult] = []
    try:
        for case in cases:
            result = await run_case(session.app, case, session.model)
            results.append(result)
            if not args.json:
                reason = f" — {'; '.join(result.reasons)}" if result.reasons else ""
                print(f"{'PASS' if result.passed else 'FAIL'}  {result.name}{reason}", flush=True)
    finally:
        await session.app.aclose()
    passed = sum(r.passed for r in results)
    if args.json:
        report = {
            "model": session.model,
            "total": len(results),
            "passed": passed,
            "failed": len(results) - passed,
            "cases": [
                {
                    "name": r.name,
                    "passed": r.passed,
                    "reasons": list(r.reasons),
                    "duration_ms": r.duration_ms,
                    "tools_called": list(r.tools_called),
                }
                for r in results
            ],
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(f"{passed}/{len(results)} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1
