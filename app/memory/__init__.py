"""Memory (SPEC S5): explicit memories, MEMORY.md with versions, consolidation, Dream, SOUL.md,
notes and todos. Plugged into turns and routes as one Capability (`capability.py`)."""
