"""`python -m app.testing.fake_llm --port 0 --print-port [--script FILE.json]`.

Prints `PORT=<n>` once listening; script it further over `POST /_control/script`. Stops on
SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path

from app.testing.fake_llm.script import parse_steps
from app.testing.fake_llm.server import FakeLLMServer
from app.testing.fake_llm.state import DEFAULT_MODELS, DEFAULT_TEXT


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m app.testing.fake_llm", description=__doc__)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--print-port", action="store_true", help="print PORT=<n> once listening")
    p.add_argument("--script", type=Path, help="JSON file: a list of steps or {'steps': [...]}")
    p.add_argument("--valid-key", action="append", dest="valid_keys", help="accepted API key (repeat)")
    p.add_argument("--model", action="append", dest="models", help="served model name (repeat)")
    p.add_argument("--default-text", default=DEFAULT_TEXT)
    p.add_argument(
        "--quirk",
        action="append",
        dest="quirks",
        default=[],
        help="reproduce a real server's behaviour, e.g. llama_cpp (app/testing/fake_llm/quirks.py; repeat)",
    )
    p.add_argument("--one-slot", action="store_true", help="a new request interrupts the running one")
    p.add_argument("--default-prefill", type=float, default=0.0, help="seconds before the default answer")
    p.add_argument("--default-delay", type=float, default=0.0, help="seconds per chunk of the default answer")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    steps = parse_steps(json.loads(args.script.read_text("utf-8"))) if args.script else []
    server = FakeLLMServer(
        valid_keys=args.valid_keys,
        models=args.models or DEFAULT_MODELS,
        default_text=args.default_text,
        port=args.port,
        steps=steps,
        quirks=args.quirks,
        one_slot=args.one_slot,
        default_prefill_s=args.default_prefill,
        default_delay_s=args.default_delay,
    )
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with server:
        if args.print_port:
            print(f"PORT={server.port}", flush=True)
        while not stop.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
