"""Run one store operation in a child process and freeze at a named step, so the test can
SIGKILL it there. Usage: python -m tests.skills.crash_worker BASE OP STEP [ARG]"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.skills.helpers import make_env, skill_md


def main(base: str, op: str, step: str, arg: str = "") -> int:
    def hook(name: str) -> None:
        if name == step:
            print(f"PAUSED {name}", flush=True)
            time.sleep(600)

    env = make_env(Path(base), hook=hook)
    if op == "rollback":
        env.store.rollback("demo", arg)
    elif op == "rollback-loop":  # no pause: flip between two versions until killed
        # Each rollback snapshots the live version first, so the newest snapshot is always the
        # other of the two states; fixed ids would be pruned after 50 versions.
        print("PAUSED loop", flush=True)
        for _ in range(10_000):
            env.store.rollback("demo", env.store.versions("demo")[0].version_id)
    elif op == "import":
        env.store.import_zip(Path(arg))
    elif op == "replace":
        env.store.replace("demo", skill_md("demo", description="New."), arg)
    elif op == "delete":
        env.store.delete("demo")
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
