"""Landlock through ctypes: the three syscalls, the access-right bits, nothing else.

Why our own glue (docs/decisions.md 313): the ruleset is built once (opening every path, any
error reported there) and only `restrict` runs, in the thread that starts the program. The
PyPI bindings build and apply in one call. Syscall numbers 444-446 are
the same on every architecture (they were added after the tables were unified).
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass

SYS_CREATE_RULESET = 444
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446
PR_SET_NO_NEW_PRIVS = 38
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
RULE_NET_PORT = 2

# File-system rights (ABI in which each appeared).
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
# Network rights (ABI 4) and scopes (ABI 6).
BIND_TCP = 1 << 0
CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # what a rule on a file may hold
READ = EXECUTE | READ_FILE | READ_DIR
WRITE = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_SYM
    | REFER
    | TRUNCATE
)


def fs_rights(abi: int) -> int:
    """Every file-system right this ABI handles (a right not handled is not restricted)."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _NetPort(ctypes.Structure):
    _fields_ = (("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64))


class LandlockError(OSError):
    """A Landlock syscall failed (the message says which and why)."""


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


@dataclass(frozen=True)
class Landlock:
    """The bound syscalls. `load()` returns None off Linux."""

    syscall: Callable[..., int]
    prctl: Callable[..., int]

    @classmethod
    def load(cls) -> Landlock | None:
        libc = _libc()
        if libc is None:
            return None
        syscall = libc.syscall
        syscall.restype = ctypes.c_long
        prctl = libc.prctl
        prctl.restype = ctypes.c_int
        return cls(syscall, prctl)

    def abi(self) -> int:
        """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
        version = self.syscall(
            SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION)
        )
        return max(int(version), 0)

    def create(self, *, abi: int, fs: int, net: int, scoped: int) -> int:
        attr = _RulesetAttr(fs, net, scoped)
        size = 8 if abi < 4 else 16 if abi < 6 else 24
        fd = self.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
        if fd < 0:
            raise _error("landlock_create_ruleset")
        return int(fd)

    def allow_path(self, ruleset: int, path: str, rights: int) -> None:
        """Allow `rights` beneath `path` (follows symlinks: the rule is on what it names)."""
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            if not stat.S_ISDIR(os.fstat(fd).st_mode):
                rights &= FILE_RIGHTS
            rule = _PathBeneath(rights, fd)
            if (
                self.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0))
                < 0
            ):
                raise _error(f"landlock_add_rule({path})")
        finally:
            os.close(fd)

    def allow_port(self, ruleset: int, port: int, rights: int) -> None:
        rule = _NetPort(rights, port)
        if self.syscall(SYS_ADD_RULE, ruleset, RULE_NET_PORT, ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
            raise _error(f"landlock_add_rule(port {port})")

    def restrict(self, ruleset: int) -> None:
        """No new privileges, then the ruleset, for the calling thread (and what it starts)
        only: app/sandbox/confine.py calls it in a thread of its own."""
        if self.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _error("prctl(PR_SET_NO_NEW_PRIVS)")
        if self.syscall(SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            raise _error("landlock_restrict_self")


def _error(what: str) -> LandlockError:
    err = ctypes.get_errno()
    return LandlockError(err, f"{what}: {os.strerror(err)}")
