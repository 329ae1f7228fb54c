"""Waiting turns survive a restart (issue 35 item 3): the `turn_checkpoints` table (this
capability's schema part) and its store. The core writes a turn's progress while a question
waits (app/core/progress.py); app/api/resume.py lists the questions again after a restart and
continues a turn when one is answered."""
