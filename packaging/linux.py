"""Linux installers around the one-folder bundle: a .deb and an AppImage.

    python packaging/linux.py deb|appimage|all     # after PyInstaller wrote dist/cashcode/

Both are built from the same bundle with tools from Debian packages only (dpkg-deb, mksquashfs,
gcc and the static squashfuse/libfuse3 libraries for the AppImage runtime, see
docs/packaging.md), so a clean checkout builds them offline. Standard library only: build.py
runs it with any Python 3.11. Output names carry the version of pyproject.toml (its one source).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
APP_ID = "cashcode"
INSTALL_DIR = f"/opt/{APP_ID}"

# What the bundled Qt WebEngine loads from the system (the same list as build.py's APT_RUNTIME,
# which the source run needs too): X11/xcb, GL/EGL, fonts, D-Bus, NSS (Chromium's TLS) and ALSA.
DEB_DEPENDS = (
    "libc6 (>= 2.36)", "libegl1", "libgl1", "libfontconfig1", "libdbus-1-3", "libxkbcommon-x11-0",
    "libxcb-cursor0", "libxcb-icccm4", "libxcb-image0", "libxcb-keysyms1", "libxcb-randr0",
    "libxcb-render-util0", "libxcb-shape0", "libxcb-xinerama0", "libxcb-xkb1", "libnss3",
    "libxcomposite1", "libxdamage1", "libxrandr2", "libxtst6", "libxss1", "libasound2",
)
# The AppImage runtime's build dependencies (static libraries).
RUNTIME_BUILD_DEBS = ("gcc", "libc6-dev", "libsquashfuse-dev", "libfuse3-dev", "libzstd-dev", "zlib1g-dev",
                      "liblzma-dev", "liblz4-dev", "liblzo2-dev")
TOOLS_DEBS = ("dpkg-dev", "squashfs-tools", "desktop-file-utils", *RUNTIME_BUILD_DEBS)
# What `--smoke` adds: a real Secret Service on a private session bus for the frozen app's
# keyring test (tests/packaging/keychain.py; the tests' file keyring is not in the bundle).
SMOKE_DEBS = ("dbus-daemon", "gnome-keyring")


@dataclass(frozen=True)
class Layout:
    """Where things are: the bundle PyInstaller wrote and where installers go."""

    root: Path = ROOT

    @property
    def bundle(self) -> Path:
        return self.root / "dist" / APP_ID

    @property
    def out(self) -> Path:
        return self.root / "dist"

    @property
    def work(self) -> Path:
        return self.root / "build" / "installers"


def project_version(root: Path = ROOT) -> str:
    import tomllib

    return str(tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def source_date_epoch(root: Path = ROOT) -> int:
    """Fixed timestamps make the archives depend on the sources only (reproducible builds)."""
    if value := os.environ.get("SOURCE_DATE_EPOCH"):
        return int(value)
    out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True, text=True)
    return int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else 0


def deb_arch() -> str:
    return {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)


def run(cmd: list[str], **kw: object) -> None:
    print("[package] $ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)  # type: ignore[call-overload]


def tree_size(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            p = Path(dirpath) / name
            if not p.is_symlink():
                total += p.stat().st_size
    return total


# MCP Bundles have no registered media type; this one is declared by mime_package() below
# (globs *.mcpb, a ZIP underneath) so a double click opens CashCode's install preview.
MCPB_MIME = "application/x-mcpb"


def mime_package() -> str:
    """usr/share/mime/packages/cashcode-mcpb.xml (shared-mime-info; dpkg's trigger for that
    folder rebuilds the database on install)."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">\n'
        f'  <mime-type type="{MCPB_MIME}">\n'
        "    <comment>MCP Bundle</comment>\n"
        '    <comment xml:lang="zh_CN">MCP 扩展包</comment>\n'
        '    <sub-class-of type="application/zip"/>\n'
        '    <glob pattern="*.mcpb"/>\n'
        "  </mime-type>\n"
        "</mime-info>\n"
    )


def desktop_entries() -> dict[str, str]:
    """The launcher entry, and hidden ones that put CashCode into "Open with" for .zip files
    (a Skill ZIP) and make it the opener of .mcpb files (an MCP Bundle: a double click opens
    its install preview) without making every menu launch ask for a file."""
    common = "Type=Application\nIcon=cashcode\nTerminal=false\nStartupWMClass=cashcode\n"
    main = (
        "[Desktop Entry]\nName=CashCode\nGenericName=AI Agent\nGenericName[zh_CN]=AI 助手\n"
        "Comment=A local-first personal AI agent\nComment[zh_CN]=本地优先的个人 AI 助手\n"
        f"Exec=cashcode desktop\n{common}Categories=Utility;\n"
        "Keywords=AI;agent;chat;LLM;\nActions=quick-ask;\n\n"
        "[Desktop Action quick-ask]\nName=Quick Ask\nName[zh_CN]=快速提问\n"
        "Exec=cashcode desktop --quick-ask\n"
    )
    skill = (
        "[Desktop Entry]\nName=CashCode\nComment=Import a Skill into CashCode\n"
        "Comment[zh_CN]=把技能导入 CashCode\n"
        f"Exec=cashcode desktop --import-skill %f\n{common}NoDisplay=true\nCategories=Utility;\n"
        "MimeType=application/zip;application/x-zip-compressed;\n"
    )
    bundle = (
        "[Desktop Entry]\nName=CashCode\nComment=Install an MCP Bundle into CashCode\n"
        "Comment[zh_CN]=把 MCP 扩展包安装到 CashCode\n"
        f"Exec=cashcode desktop %f\n{common}NoDisplay=true\nCategories=Utility;\n"
        f"MimeType={MCPB_MIME};\n"
    )
    return {
        f"{APP_ID}.desktop": main,
        f"{APP_ID}-import-skill.desktop": skill,
        f"{APP_ID}-install-bundle.desktop": bundle,
    }


def stage_share(share: Path) -> None:
    """usr/share: desktop entries, the .mcpb media type and the hicolor icons (16…512 px plus
    the SVG)."""
    apps = share / "applications"
    apps.mkdir(parents=True, exist_ok=True)
    for name, text in desktop_entries().items():
        (apps / name).write_text(text, encoding="utf-8")
    mime = share / "mime" / "packages"
    mime.mkdir(parents=True, exist_ok=True)
    (mime / f"{APP_ID}-mcpb.xml").write_text(mime_package(), encoding="utf-8")
    for size in ICON_SIZES:
        dest = share / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ICONS / f"cashcode-{size}.png", dest / f"{APP_ID}.png")
    scalable = share / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ICONS / "cashcode.svg", scalable / f"{APP_ID}.svg")


def validate_desktop_files(share: Path) -> None:
    if shutil.which("desktop-file-validate"):
        for entry in sorted((share / "applications").glob("*.desktop")):
            run(["desktop-file-validate", str(entry)])


def normalise_tree(tree: Path, epoch: int) -> None:
    """Same modes and times for every build of the same sources."""
    for dirpath, dirs, files in os.walk(tree):
        for name in dirs + files:
            p = Path(dirpath) / name
            if not p.is_symlink():
                mode = p.stat().st_mode
                executable = p.is_dir() or mode & 0o111
                p.chmod(0o755 if executable else 0o644)
            os.utime(p, (epoch, epoch), follow_symlinks=False)
    os.utime(tree, (epoch, epoch))


def control_text(version: str, installed_kib: int) -> str:
    return (
        f"Package: {APP_ID}\nVersion: {version}\nArchitecture: {deb_arch()}\n"
        "Maintainer: CashCode developers <cashcode@localhost>\nSection: utils\nPriority: optional\n"
        f"Installed-Size: {installed_kib}\nDepends: {', '.join(DEB_DEPENDS)}\n"
        "Description: local-first personal AI agent for the desktop\n"
        " CashCode chats with OpenAI-compatible providers (or a local Ollama), runs tools with\n"
        " approval, and keeps chats, memories and Skills on this computer. The `cashcode`\n"
        " command is the CLI; with no command it opens the desktop window.\n"
    )


def build_deb(layout: Layout) -> Path:
    """/opt/cashcode (the bundle), /usr/bin/cashcode (symlink), desktop entries and icons.
    User data and settings live in the user's folders (platformdirs), never under /opt, so an
    upgrade replaces the program and keeps them."""
    version, epoch = project_version(layout.root), source_date_epoch(layout.root)
    stage = layout.work / "deb"
    shutil.rmtree(stage, ignore_errors=True)
    opt = stage / INSTALL_DIR.lstrip("/")
    shutil.copytree(layout.bundle, opt, symlinks=True)
    (stage / "usr" / "bin").mkdir(parents=True)
    (stage / "usr" / "bin" / APP_ID).symlink_to(f"../..{INSTALL_DIR}/{APP_ID}")
    stage_share(stage / "usr" / "share")
    validate_desktop_files(stage / "usr" / "share")
    installed_kib = (tree_size(stage) + 1023) // 1024
    (stage / "DEBIAN").mkdir()
    (stage / "DEBIAN" / "control").write_text(control_text(version, installed_kib), encoding="utf-8")
    normalise_tree(stage, epoch)
    target = layout.out / f"{APP_ID}_{version}_{deb_arch()}.deb"
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch)}
    # zstd (dpkg ≥ 1.21.18: Debian 12, Ubuntu 22.04): xz -6 of the ~490 MB bundle took over 25
    # minutes on two busy cores; zstd -12 compresses in seconds and unpacks faster.
    run(["dpkg-deb", "--root-owner-group", "-Zzstd", "-z12", "--build", str(stage), str(target)], env=env)
    return target


def build_runtime(layout: Layout) -> Path:
    """Compile the AppImage type-2 runtime (packaging/appimage/runtime.c, MIT) statically
    against Debian's squashfuse and libfuse3, so the AppImage needs no FUSE library installed."""
    src = PACKAGING / "appimage"
    out = layout.work / "appimage-runtime"
    binary = out / "runtime"
    inputs = [src / "runtime.c", src / "data_sections.ld", src / "fuseprivate.h"]
    if binary.exists() and all(binary.stat().st_mtime >= p.stat().st_mtime for p in inputs):
        return binary
    include = out / "include" / "squashfuse"
    include.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "fuseprivate.h", include / "fuseprivate.h")
    run(["gcc", "-std=gnu99", "-Os", "-D_FILE_OFFSET_BITS=64", '-DGIT_COMMIT="cashcode-debian-squashfuse"',
         f"-I{out / 'include'}", "-I/usr/include/squashfuse", "-I/usr/include/fuse3",
         "-T", str(src / "data_sections.ld"), "-ffunction-sections", "-fdata-sections",
         "-Wl,--gc-sections", "-static", "-w", str(src / "runtime.c"),
         "-lsquashfuse_ll", "-lsquashfuse", "-lzstd", "-lz", "-llzma", "-llz4", "-llzo2", "-lfuse3",
         "-lpthread", "-ldl", "-o", str(binary)])
    run(["strip", str(binary)])
    return binary


APPRUN = """#!/bin/sh
# AppImage entry: the bundled executable with the same arguments (no command opens the window).
HERE="$(dirname "$(readlink -f "$0")")"
exec "$HERE/opt/cashcode/cashcode" "$@"
"""


def build_appimage(layout: Layout) -> Path:
    version, epoch = project_version(layout.root), source_date_epoch(layout.root)
    runtime = build_runtime(layout)
    appdir = layout.work / "AppDir"
    shutil.rmtree(appdir, ignore_errors=True)
    shutil.copytree(layout.bundle, appdir / "opt" / APP_ID, symlinks=True)
    stage_share(appdir / "usr" / "share")
    shutil.copyfile(appdir / "usr/share/applications" / f"{APP_ID}.desktop", appdir / f"{APP_ID}.desktop")
    shutil.copyfile(ICONS / "cashcode-256.png", appdir / f"{APP_ID}.png")
    (appdir / ".DirIcon").symlink_to(f"{APP_ID}.png")
    (appdir / "AppRun").write_text(APPRUN, encoding="utf-8")
    (appdir / "AppRun").chmod(0o755)
    normalise_tree(appdir, epoch)
    squash = layout.work / "cashcode.squashfs"
    squash.unlink(missing_ok=True)
    run(["mksquashfs", str(appdir), str(squash), "-root-owned", "-noappend", "-comp", "zstd",
         "-Xcompression-level", "15", "-b", "1M", "-mkfs-time", str(epoch), "-all-time", str(epoch),
         "-quiet", "-no-progress"])
    target = layout.out / f"CashCode-{version}-{os.uname().machine}.AppImage"
    with open(target, "wb") as fh:
        fh.write(runtime.read_bytes())
        with open(squash, "rb") as body:
            shutil.copyfileobj(body, fh, 1 << 20)
    target.chmod(0o755)
    squash.unlink()
    return target


def missing_tools() -> list[str]:
    needed = {"dpkg-deb": "dpkg-dev", "mksquashfs": "squashfs-tools", "gcc": "gcc"}
    missing = [deb for tool, deb in needed.items() if shutil.which(tool) is None]
    libs = {"libsquashfuse-dev": "/usr/lib/x86_64-linux-gnu/libsquashfuse_ll.a",
            "libfuse3-dev": "/usr/lib/x86_64-linux-gnu/libfuse3.a"}
    missing += [deb for deb, lib in libs.items() if deb_arch() == "amd64" and not Path(lib).exists()]
    return missing


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "all"
    layout = Layout()
    if not (layout.bundle / APP_ID).exists():
        print(f"[package] no bundle at {layout.bundle}: run `python build.py package` first", file=sys.stderr)
        return 2
    made: list[Path] = []
    if what in ("deb", "all"):
        made.append(build_deb(layout))
    if what in ("appimage", "all"):
        made.append(build_appimage(layout))
    for path in made:
        print(f"[package] wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
