"""Package sizes and frozen start-up (issue: packaging; SPEC S14 budgets).

- Sizes: the app's one-folder bundle (installed), its .deb and AppImage (compressed), against
  the hello-world pywebview window (bench/hello_window.py) frozen the same way
  (packaging/hello.spec: same PyInstaller options and trim rules) and compressed the same way
  (zstd -12 for the .deb, the AppImage runtime + zstd squashfs for the AppImage). Budget ≤ 1.3×.
- Start-up: spawn → the window's `loaded` mark, the frozen program (dist/cashcode/cashcode)
  against the source run (`python -m app.desktop`), interleaved, under Xvfb. Budget ≤ 1.2×.

Needs `python build.py package` first; builds the hello-world bundle itself when missing.
Run: .venv/bin/python bench/bench_package.py [--runs 5] [--only sizes|startup]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "packaging"))

import linux as linux_pkg  # noqa: E402  packaging/linux.py

from tests.desktop.harness import app_dirs_env, desktop_command, launch, wait_for_mark  # noqa: E402
from tests.desktop.xvfb import xvfb  # noqa: E402

HELLO_DIST = ROOT / "build" / "hello-dist"
HELLO = HELLO_DIST / "hello_window"


def build_hello() -> None:
    if (HELLO / "hello_window").exists():
        return
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
                    "--distpath", str(HELLO_DIST), "--workpath", str(ROOT / "build" / "hello-work"),
                    str(ROOT / "packaging" / "hello.spec")], cwd=ROOT, check=True)


def deb_payload_size(folder: Path, work: Path) -> int:
    """Size of the folder as a tar compressed like the .deb's payload (zstd -12, packaging/linux.py)."""
    target = work / f"{folder.name}.tar.zst"
    tar = subprocess.Popen(["tar", "-C", str(folder.parent), "-cf", "-", folder.name], stdout=subprocess.PIPE)
    with open(target, "wb") as out:
        subprocess.run(["zstd", "-12", "-T0", "-q", "-c"], stdin=tar.stdout, stdout=out, check=True)
    assert tar.wait() == 0
    return target.stat().st_size


def squash_size(folder: Path, work: Path) -> int:
    """The AppImage's payload made with the same mksquashfs options, plus the runtime."""
    target = work / f"{folder.name}.squashfs"
    subprocess.run(["mksquashfs", str(folder), str(target), "-root-owned", "-noappend", "-comp", "zstd",
                    "-Xcompression-level", "15", "-b", "1M", "-quiet", "-no-progress"], check=True)
    runtime = ROOT / "build" / "installers" / "appimage-runtime" / "runtime"
    return target.stat().st_size + runtime.stat().st_size


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def size_rows() -> list[str]:
    build_hello()
    bundle = linux_pkg.Layout().bundle
    version, arch = linux_pkg.project_version(), linux_pkg.deb_arch()
    deb = ROOT / "dist" / f"cashcode_{version}_{arch}.deb"
    image = ROOT / "dist" / f"CashCode-{version}-{os.uname().machine}.AppImage"
    with tempfile.TemporaryDirectory() as tmp:
        hello_installed = linux_pkg.tree_size(HELLO)
        hello_deb = deb_payload_size(HELLO, Path(tmp))
        hello_squash = squash_size(HELLO, Path(tmp))
    installed = linux_pkg.tree_size(bundle)
    rows = [
        f"| bundle installed (dist/cashcode) | {mb(hello_installed)} | {mb(installed)} | "
        f"{installed / hello_installed:.2f}× | ≤ 1.3× |",
        f"| .deb (zstd -12) | {mb(hello_deb)} | {mb(deb.stat().st_size)} | "
        f"{deb.stat().st_size / hello_deb:.2f}× | ≤ 1.3× |",
        f"| AppImage (runtime + zstd squashfs) | {mb(hello_squash)} | {mb(image.stat().st_size)} | "
        f"{image.stat().st_size / hello_squash:.2f}× | ≤ 1.3× |",
    ]
    return rows


PHASES = ("run", "shown", "loaded")  # app/desktop/startup_marks.py: entry reached, window shown, page loaded


def phase_times(argv: list[str], env: dict[str, str], display: str) -> dict[str, float]:
    """Seconds from spawn to each start-up mark (`loaded` is the visible, usable window)."""
    app = launch(argv, env, display, cdp=False)
    try:
        loaded = wait_for_mark(app, "loaded", timeout_s=120)
        marks = {name: app.marks.get(name, loaded) for name in PHASES}
        return {name: at - app.started_at for name, at in marks.items()}
    finally:
        app.close_window(timeout_s=60)
        app.leftovers()


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}–{max(values):.2f})"


def startup_rows(runs: int) -> list[str]:
    frozen_cmd = [str(linux_pkg.Layout().bundle / "cashcode"), "desktop"]
    frozen: list[dict[str, float]] = []
    source: list[dict[str, float]] = []
    with xvfb() as display, tempfile.TemporaryDirectory() as tmp:
        env = app_dirs_env(Path(tmp) / "cashcode")
        # The frozen program cannot load the tests' file keyring; neither run needs a key.
        env.pop("PYTHON_KEYRING_BACKEND")
        for i in range(runs):  # interleaved, so load changes hit both the same way
            for argv, out in ((frozen_cmd, frozen), (desktop_command(), source)) if i % 2 == 0 else (
                    (desktop_command(), source), (frozen_cmd, frozen)):
                out.append(phase_times(argv, env, display.name))
                time.sleep(0.5)
    f = statistics.median(t["loaded"] for t in frozen)
    s = statistics.median(t["loaded"] for t in source)
    spread = (f"frozen {min(t['loaded'] for t in frozen):.2f}–{max(t['loaded'] for t in frozen):.2f} s, "
              f"source {min(t['loaded'] for t in source):.2f}–{max(t['loaded'] for t in source):.2f} s")
    rows = [f"| cold start → visible window (median of {runs}; {spread}) | {s:.2f} s (source run) | "
            f"{f:.2f} s (frozen) | {f / s:.2f}× | ≤ 1.2× |", "",
            "| phase (spawn → mark), median (min–max) | source | frozen |", "|---|---|---|"]
    for name in PHASES:  # where a difference comes from: interpreter + imports, window, page
        src, frz = _spread([t[name] for t in source]), _spread([t[name] for t in frozen])
        rows.append(f"| {name} | {src} | {frz} |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=("sizes", "startup"), action="append")
    args = parser.parse_args()
    if not (linux_pkg.Layout().bundle / "cashcode").exists():
        print("bench_package: skipped, no bundle (run `python build.py package` first)")
        return 0
    parts = args.only or ["sizes", "startup"]
    load = os.getloadavg()[0]
    rows = [f"load average at start: {load:.1f}", "",
            "| metric | floor | CashCode | ratio | budget |", "|---|---|---|---|---|"]
    if "sizes" in parts:
        rows += size_rows()
    if "startup" in parts:
        rows += startup_rows(args.runs)
    rows += ["", f"load average at end: {os.getloadavg()[0]:.1f}"]
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
