"""The private namespaces of a confined program: its own network and its own /tmp.

Where user namespaces are allowed (or the app runs as root), every confined program gets, on
top of Landlock (docs/decisions.md 435):
- a network namespace of its own: only a loopback of its own, so nothing leaves by UDP either
  (Landlock filters TCP only);
- a mount namespace in which /tmp is the run's private temp folder (bind-mounted), so a write
  to /tmp/x lands there and the host's /tmp never sees it. Paths the sandbox grants that lie
  under the host's /tmp (a workspace there, a Skill or a server installed there) are mounted
  back at their place.

Order matters: Landlock forbids a restricted process to mount anything, and a thread cannot
enter a user or mount namespace (the kernel refuses a multi-threaded caller). So a launcher
process does it: `python -I -S launch.py RULESET_FD ERR_FD TEMP [--keep PATH]...
[--setenv NAME=VALUE]... -- ARGV`
enters the namespaces, mounts, restricts itself with the ruleset the app built (the fd is
inherited), then execs the program. A failure before the exec is written to ERR_FD (which the
exec closes) and nothing is started: `S<text>` when the sandbox could not be set up,
`E<errno> <text>` when the program could not be executed. The child guard of a sandboxed MCP
server calls `enter` itself (it is already such a launcher).

`--probe` only enters the namespaces and exits 0 (what `cashcode config sandbox` and each turn
of the Sandboxed mode check).

Standard library only, and no dataclasses or typing at run time: it is started for every
confined program, so it must start fast.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_NO_NEW_PRIVS = 38
SYS_RESTRICT_SELF = 446
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 1
IFREQ_SIZE = 40
AF_INET = 2
SOCK_DGRAM = 2
TMP = "/tmp"
# Read by the dynamic loader and glibc at the launcher's own start, before it is confined: the
# app hands them over with --setenv NAME=VALUE instead, for the program only.
LOADER_PREFIX = "LD_"
LOADER_VARS = ("GCONV_PATH", "MALLOC_CONF", "LOCPATH", "HOSTALIASES")


def read_by_loader(name: str) -> bool:
    return name.startswith(LOADER_PREFIX) or name in LOADER_VARS


LAUNCH_FLAG = "--sandbox-launch"  # a frozen build's hidden entry (app/mcp/frozen.py)


class NamespaceError(OSError):
    """A namespace or mount step failed (the message says which)."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise NamespaceError(err, f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def unshare(libc: ctypes.CDLL) -> None:
    """A new network and mount namespace; in a user namespace of its own (the same uid and gid
    mapped) unless the caller may make them directly (root). The caller must be single-threaded."""
    uid, gid = os.geteuid(), os.getegid()
    if uid == 0 and libc.unshare(CLONE_NEWNS | CLONE_NEWNET) == 0:
        return  # root: no user namespace, so root keeps its rights on files of other owners
    _check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def kept_under_tmp(paths: list[str], temp: str) -> list[str]:
    """The granted paths under /tmp that must stay visible (outermost only), not the temp
    folder itself, which becomes /tmp. `[/tmp]` when a granted path is /tmp itself or holds it
    (the workspace is /tmp): then /tmp stays the host's, as the user chose."""
    if any(_within(TMP, p) for p in paths):
        return [TMP]
    found = sorted({p for p in paths if _within(p, TMP) and p != TMP and not _within(p, temp)})
    out: list[str] = []
    for p in found:
        if not any(_within(p, q) for q in out):
            out.append(p)
    return out


def enter(temp: str, keep: list[str]) -> None:
    """Enter the private network and mount namespaces; /tmp becomes `temp`, `keep` (paths
    under the host's /tmp) stay where they are. Raises NamespaceError."""
    libc = _libc()
    libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p)
    unshare(libc)
    # Private first: nothing mounted below may propagate back to the host.
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    kept = kept_under_tmp(keep, temp)
    if kept == [TMP]:  # the workspace is /tmp: the private network only
        _loopback_up(libc)
        return
    cwd = os.getcwd()
    held = []
    for path in kept:
        try:
            held.append((os.open(path, os.O_PATH | os.O_CLOEXEC), path))
        except OSError:
            continue  # gone: nothing to keep
    _check(
        libc.mount(temp.encode(), TMP.encode(), None, MS_BIND | MS_REC | MS_NOSUID | MS_NODEV, None),
        "mount /tmp",
    )
    for fd, path in held:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        _check(
            libc.mount(f"/proc/self/fd/{fd}".encode(), path.encode(), None, MS_BIND | MS_REC, None),
            f"mount {path}",
        )
        os.close(fd)
    try:
        os.chdir(cwd)  # through the mounts just made (a workspace under /tmp)
    except OSError:
        pass
    _loopback_up(libc)


def _loopback_up(libc: ctypes.CDLL) -> None:
    """The new network namespace's loopback, up: programs that talk to themselves on
    127.0.0.1 still work; nothing outside is reachable. Through ctypes: importing `socket`
    costs more than the rest of the launcher under load."""
    fd = libc.socket(AF_INET, SOCK_DGRAM, 0)
    if fd < 0:
        _check(-1, "socket")
    try:
        ifreq = ctypes.create_string_buffer(b"lo", IFREQ_SIZE)  # name, then the flags (a short)
        _check(libc.ioctl(fd, SIOCGIFFLAGS, ifreq), "ioctl(SIOCGIFFLAGS)")
        flags = int.from_bytes(ifreq.raw[16:18], sys.byteorder) | IFF_UP
        ctypes.memmove(ctypes.addressof(ifreq) + 16, flags.to_bytes(2, sys.byteorder), 2)
        _check(libc.ioctl(fd, SIOCSIFFLAGS, ifreq), "ioctl(SIOCSIFFLAGS)")
    finally:
        os.close(fd)


def restrict(libc: ctypes.CDLL, ruleset_fd: int) -> None:
    """no_new_privs, then the Landlock ruleset the app built, for this process."""
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    libc.syscall.restype = ctypes.c_long
    _check(libc.syscall(SYS_RESTRICT_SELF, ruleset_fd, ctypes.c_uint32(0)), "landlock_restrict_self")


def _probe() -> int:
    try:
        enter(os.path.realpath(TMP), [])
    except OSError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--probe"]:
        return _probe()
    ruleset_fd, err_fd, temp = int(argv[0]), int(argv[1]), argv[2]
    os.set_inheritable(err_fd, False)  # the exec closes it: the app reads EOF = started
    keep: list[str] = []
    env = dict(os.environ)
    rest = argv[3:]
    while rest and rest[0] in ("--keep", "--setenv"):
        if rest[0] == "--keep":
            keep.append(rest[1])
        else:
            name, _, value = rest[1].partition("=")
            env[name] = value
        rest = rest[2:]
    program = rest[1:] if rest[:1] == ["--"] else rest
    try:
        libc = _libc()
        enter(temp, keep)
        restrict(libc, ruleset_fd)
        os.close(ruleset_fd)
    except OSError as exc:
        os.write(err_fd, f"S{exc.strerror or exc}".encode())
        return 126
    try:
        os.execvpe(program[0], program, env)
    except OSError as exc:
        os.write(err_fd, f"E{exc.errno} {exc.strerror}".encode())
        return 127
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
