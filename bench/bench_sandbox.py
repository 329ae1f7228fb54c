"""The sandbox's cost (issue 36): a sandboxed `exec` of /bin/true ≤ 10 ms over the same spawn
unsandboxed (median of 200); a `pytest` run of a small project inside the sandbox ≤ 1.05× the
same run outside.

Method
- Spawn: the real entry points, `app/tools/process.py run_process` (the floor) and
  `app/tools/confined.py run_confined` (ruleset built in the parent, private temp folder made
  and removed, no_new_privs + Landlock in the child), each running /bin/true in a temp
  workspace with the listed secrets hidden. Interleaved pairs (floor, sandboxed), `--runs` of
  them after 10 warm-ups; medians and the median of the paired differences.
- The same pair without asyncio (run_process polls the child every 20 ms, which quantizes the
  rows above): `subprocess.run` of /bin/true vs `confine` + `Confinement.popen` (a thread
  restricts itself and starts it) + the temp folder's removal, interleaved, medians and the
  median paired difference; and `subprocess.run(preexec_fn=…)` restricting in the forked
  child instead (what decision 314 did not choose).
- For the record of docs/decisions.md: the same spawn through a launcher process instead
  (`python -I -S` importing ctypes, then exec), which the app does not use.
- pytest: `python -m pytest -q` of a small project (20 test files × 10 tests) in the workspace,
  sandboxed vs not, interleaved after one warm-up pair, median of `--pytest-runs`: wall time,
  and the CPU time of the run (the children's user + system time, which the machine's load
  disturbs far less than wall time).
- Where user namespaces work: the /bin/true and pytest rows again with the private network
  and /tmp (`SandboxSpec.namespaces`: the launcher app/sandbox/launch.py, decision 435), each
  against its own interleaved floor.

Run from the repo root: .venv/bin/python bench/bench_sandbox.py [--runs 200] [--pytest-runs 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.contracts.tools import SandboxSpec, ToolContext  # noqa: E402
from app.sandbox.probe import landlock_abi, private_namespaces  # noqa: E402
from app.sandbox.secrets import never_readable  # noqa: E402
from app.tools.confined import run_confined  # noqa: E402
from app.tools.process import run_process  # noqa: E402

CAP = 65536


CPU: list[float] = []  # the children's CPU seconds of each `_time` call, in order


async def _time(coro_factory) -> float:  # type: ignore[no-untyped-def]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    outcome = await coro_factory()
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    assert outcome.returncode == 0, outcome
    return elapsed


async def spawn(
    ctx: ToolContext, env: dict[str, str], runs: int, argv: list[str], warmups: int = 10
) -> tuple[list[float], list[float]]:
    def plain():  # type: ignore[no-untyped-def]
        return run_process(argv, cwd=ctx.workspace, env=env, timeout=30, cap=CAP)

    def boxed():  # type: ignore[no-untyped-def]
        return run_confined(argv, cwd=ctx.workspace, env=env, timeout=30, cap=CAP, ctx=ctx)

    for _ in range(warmups):
        await _time(plain)
        await _time(boxed)
    floor, sandboxed = [], []
    for _ in range(runs):
        floor.append(await _time(plain))
        sandboxed.append(await _time(boxed))
    return floor, sandboxed


def bare(ctx: ToolContext, runs: int) -> tuple[list[float], list[float]]:
    import subprocess

    from app.sandbox.confine import confine, private_temp
    from app.sandbox.landlock import Landlock
    from app.sandbox.policy import Policy

    lock = Landlock.load()
    assert lock is not None and ctx.sandbox is not None
    abi = lock.abi()
    floor, boxed = [], []
    for i in range(runs + 10):
        start = time.perf_counter()
        subprocess.run(["/bin/true"], cwd=ctx.workspace, check=True)
        plain = time.perf_counter() - start
        start = time.perf_counter()
        policy = Policy(workspace=ctx.workspace, temp=private_temp(), hidden=ctx.sandbox.hidden)
        c = confine(policy, lock, abi)
        c.popen(["/bin/true"], cwd=ctx.workspace).wait()
        c.close()
        if i >= 10:
            floor.append(plain)
            boxed.append(time.perf_counter() - start)
    return floor, boxed


def preexec_spawn(ctx: ToolContext, runs: int) -> list[float]:
    import subprocess

    from app.sandbox.confine import confine, private_temp
    from app.sandbox.landlock import Landlock
    from app.sandbox.policy import Policy

    lock = Landlock.load()
    assert lock is not None and ctx.sandbox is not None
    c = confine(
        Policy(workspace=ctx.workspace, temp=private_temp(), hidden=ctx.sandbox.hidden), lock, lock.abi()
    )
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            ["/bin/true"], cwd=ctx.workspace, check=True, preexec_fn=lambda: lock.restrict(c.ruleset_fd)
        )
        times.append(time.perf_counter() - start)
    c.close()
    return times


async def launcher(ctx: ToolContext, env: dict[str, str], runs: int) -> list[float]:
    code = "import ctypes, os; os.execv('/bin/true', ['/bin/true'])"
    argv = [sys.base_prefix + "/bin/python3", "-I", "-S", "-c", code]
    times = []
    for _ in range(runs):
        times.append(await _time(lambda: run_process(argv, cwd=ctx.workspace, env=env, timeout=30, cap=CAP)))
    return times


def make_project(ws: Path) -> None:
    for i in range(20):
        tests = "\n".join(
            f"def test_{j}():\n    assert sum(range({j})) == {j * (j - 1) // 2}\n" for j in range(10)
        )
        (ws / f"test_mod{i}.py").write_text(tests)


def pytest_row(ctx: ToolContext, env: dict[str, str], runs: int, argv: list[str], label: str) -> None:
    CPU.clear()
    floor_p, boxed_p = asyncio.run(spawn(ctx, env, runs, argv, warmups=1))
    measured = CPU[2:]  # after the warm-up pair: floor, sandboxed, floor, …
    cpu_floor, cpu_boxed = statistics.median(measured[0::2]), statistics.median(measured[1::2])
    ratio = statistics.median(boxed_p) / statistics.median(floor_p)
    print(
        f"pytest (200 tests) × {runs}, {label}: unsandboxed median {ms(statistics.median(floor_p))}, "
        f"sandboxed {ms(statistics.median(boxed_p))}, ratio {ratio:.3f} (budget ≤ 1.05); "
        f"CPU of the run: unsandboxed {ms(cpu_floor)}, sandboxed {ms(cpu_boxed)}, "
        f"ratio {cpu_boxed / cpu_floor:.3f}"
    )


def ms(x: float) -> str:
    return f"{x * 1000:.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--pytest-runs", type=int, default=7)
    args = parser.parse_args()
    abi, reason = landlock_abi(os.environ)
    if abi < 1:
        print(f"no sandbox here: {reason}")
        return 1
    print(f"{reason}; load average {os.getloadavg()[0]:.2f} at start")
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        home = Path(os.environ.get("HOME", "/root"))
        python = Path(sys.executable)
        readable = tuple(Path(p) for p in {sys.prefix, sys.base_prefix, str(python.resolve().parent.parent)})
        spec = SandboxSpec(True, reason, hidden=never_readable(home, os.environ), readable=readable)
        ctx = ToolContext(workspace=ws, sandbox=spec)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        floor, boxed = asyncio.run(spawn(ctx, env, args.runs, ["/bin/true"]))
        diffs = [b - f for f, b in zip(floor, boxed, strict=True)]
        print(
            f"/bin/true × {args.runs}: unsandboxed median {ms(statistics.median(floor))}, "
            f"sandboxed {ms(statistics.median(boxed))}, "
            f"paired difference median {ms(statistics.median(diffs))} (budget ≤ 10 ms)"
        )
        preexec = preexec_spawn(ctx, min(args.runs, 50))
        floor_b, boxed_b = bare(ctx, args.runs)
        diffs_b = [b - f for f, b in zip(floor_b, boxed_b, strict=True)]
        print(
            f"bare spawn × {args.runs}: unsandboxed median {ms(statistics.median(floor_b))}, "
            f"sandboxed (with ruleset and temp folder) {ms(statistics.median(boxed_b))}, "
            f"paired difference median {ms(statistics.median(diffs_b))}"
        )
        print(
            "restricting in the forked child (preexec_fn) instead: "
            f"median {ms(statistics.median(preexec))} per start (not used)"
        )
        via = asyncio.run(launcher(ctx, env, min(args.runs, 50)))
        print(
            f"a python -I -S launcher (ctypes, exec): median {ms(statistics.median(via))} per start "
            f"({ms(statistics.median(via) - statistics.median(floor))} over the floor; not used)"
        )
        make_project(ws)
        argv = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        pytest_row(ctx, env, args.pytest_runs, argv, "Landlock alone")
        private, why = private_namespaces(os.environ)
        if not private:
            print(f"no private network and /tmp here: {why}")
        else:
            ctx_p = ToolContext(workspace=ws, sandbox=replace(spec, namespaces=True))
            floor, boxed = asyncio.run(spawn(ctx_p, env, args.runs, ["/bin/true"]))
            diffs = [b - f for f, b in zip(floor, boxed, strict=True)]
            print(
                f"/bin/true × {args.runs}, private network and /tmp: unsandboxed median "
                f"{ms(statistics.median(floor))}, sandboxed {ms(statistics.median(boxed))}, "
                f"paired difference median {ms(statistics.median(diffs))} (budget ≤ 10 ms)"
            )
            pytest_row(ctx_p, env, args.pytest_runs, argv, "private network and /tmp")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
