"""The sandbox: programs the agent starts (exec, approved git, Skill scripts) run confined on
Linux with Landlock (file system; TCP where the kernel's ABI has it) and no_new_privs.

`landlock` is the syscall glue, `policy` what a confined program may touch, `secrets` the
listed never-readable places, `confine` builds the ruleset in the parent and hands back what
the child applies between fork and exec, `probe` reports what this machine supports.
"""
