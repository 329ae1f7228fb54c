#!/usr/bin/env python3
"""Check a proposed Skill name against the naming rules. Usage: check_name.py NAME"""

import re
import sys


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: check_name.py NAME", file=sys.stderr)
        return 2
    name = argv[0]
    if not 1 <= len(name) <= 64 or not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name):
        print(f"invalid: {name!r} (use a-z, 0-9 and single hyphens, 1-64 chars, no edge hyphens)")
        return 1
    print(f"ok: {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
