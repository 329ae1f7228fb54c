"""Scheduled tasks (issue 29): prompts that run themselves on a schedule as full agent turns in
the task's own chat, with the task's own approval mode, recorded run by run."""
