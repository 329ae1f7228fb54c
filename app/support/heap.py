"""Give freed heap memory back to the OS (glibc's `malloc_trim`).

glibc keeps freed chunks in its arenas, so a process stays as large as its peak after a burst
of allocations (the desktop's start-up, a knowledge base's start-up scan). Elsewhere than
glibc Linux this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys


def trim_heap() -> bool:
    """Collect garbage, then return free heap memory to the OS. True if the C library did."""
    gc.collect()
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return bool(trim(0))
