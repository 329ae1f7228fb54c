"""`cashcode tasks add|edit|list|run|history|enable|disable|remove` (scheduled tasks, issue 29).

Everything goes through the `tasks.*` routes; only the schedule flags are read here, with the
capability's own parsers (app/tasks/schedule.py), so a bad flag gets one precise line before
the app is built. `run` runs the task now in the foreground and prints its answer; nobody can
answer an approval here, so an "Ask" task's approvals are denied (and recorded as refused).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from app.cli.memories_cmd import error, runner  # the CLI's plain-app runner, as kb/memory use

if TYPE_CHECKING:
    from app.api.app import CashCodeApp

Body = Callable[["CashCodeApp", argparse.Namespace], Awaitable[int]]


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("tasks", help="scheduled tasks (add, list, run, history, …)")
    commands = parser.add_subparsers(dest="tasks_command", required=True)
    add = commands.add_parser("add", help="add a task that runs a prompt on a schedule")
    add.add_argument("name")
    add.add_argument("--prompt", required=True, help="what the task asks the model each run")
    when = add.add_mutually_exclusive_group(required=True)
    when.add_argument("--every", metavar="DURATION", help="e.g. 15m, 2h, 1d (at least 1m)")
    when.add_argument("--daily", metavar="HH:MM", help="every day at this time (your time zone)")
    when.add_argument("--weekly", metavar="DAY@HH:MM", help="e.g. mon@09:00 (your time zone)")
    when.add_argument("--cron", metavar="EXPR", help="a five-field cron expression, e.g. '0 9 * * 1-5'")
    when.add_argument("--at", metavar="ISO-TIME", help="once, e.g. 2027-01-31T09:00")
    add.add_argument("--model", help="model name (default: the model chosen in the app)")
    add.add_argument("--provider", help="a saved provider (id or name)")
    add.add_argument("--workspace", metavar="DIR", help="the folder its tools work in")
    add.add_argument(
        "--approval-mode",
        choices=["read_only", "ask_writes", "sandboxed", "autonomous"],
        default=None,
        help="read_only: refuse changes; ask_writes: ask in the app; sandboxed: run programs "
        "confined, ask for more; autonomous: run everything (default: sandboxed where this machine "
        "has a sandbox, else read_only)",
    )
    add.add_argument("--agent", metavar="NAME", help="the agent its turns run as (default: default)")
    _wait_flag(add)
    add.set_defaults(func=runner(_add))
    edit = commands.add_parser("edit", help="change a task's prompt, approval mode or wait for answers")
    edit.add_argument("name")
    edit.add_argument("--prompt", help="what the task asks the model each run")
    edit.add_argument(
        "--approval-mode", choices=["read_only", "ask_writes", "sandboxed", "autonomous"], default=None
    )
    _wait_flag(edit)
    edit.set_defaults(func=runner(_edit))
    listing = commands.add_parser("list", help="list tasks with their next run and last status")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(func=runner(_list))
    run = commands.add_parser("run", help="run a task now in the foreground and print its answer")
    run.add_argument("name")
    run.set_defaults(func=_run_command)
    history = commands.add_parser("history", help="a task's runs, newest first")
    history.add_argument("name")
    history.add_argument("--json", action="store_true", help="print a JSON array")
    history.set_defaults(func=runner(_history))
    for verb, text in (
        ("enable", "enable a task"),
        ("disable", "disable a task"),
        ("remove", "remove a task"),
    ):
        sub = commands.add_parser(verb, help=text)
        sub.add_argument("name")
        sub.set_defaults(func=runner(_remove if verb == "remove" else _toggle(verb == "enable")))


def _wait_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wait-for-answers",
        metavar="SECONDS",
        type=_seconds,
        default=None,
        help="how long a run waits for an answer in the Inbox before it stops "
        "(default 86400 = a day; 0: fail at the first question)",
    )


def _seconds(text: str) -> int:
    from app.tasks.model import MAX_WAIT_FOR_ANSWERS_S

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds") from None
    if not 0 <= value <= MAX_WAIT_FOR_ANSWERS_S:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_WAIT_FOR_ANSWERS_S} seconds")
    return value


def _fail(message: str) -> int:
    from app.cli.runtime import fail

    return fail(message)


async def _find(app: CashCodeApp, name: str) -> dict[str, Any] | int:
    listed = await app.invoke("tasks.list", {})
    if not listed["ok"]:
        return error(listed)
    for task in listed["data"]["tasks"]:
        if task["name"].casefold() == name.casefold():
            found: dict[str, Any] = task
            return found
    return _fail(f"no task named {name[:80]!r} (see `cashcode tasks list`)")


def _schedule(args: argparse.Namespace, zone_name: str) -> dict[str, Any]:
    from app.tasks import schedule as s

    if args.every is not None:
        return {"kind": "every", "seconds": s.parse_duration(args.every)}
    if args.daily is not None:
        return s.parse_daily(args.daily).model_dump(mode="json")
    if args.weekly is not None:
        return s.parse_weekly(args.weekly).model_dump(mode="json")
    if args.cron is not None:
        return s.parse_cron(args.cron).model_dump(mode="json")
    return s.parse_at(args.at, s.time_zone(zone_name)).model_dump(mode="json")


async def _provider_id(app: CashCodeApp, wanted: str) -> str | int:
    listed = await app.invoke("providers.list", {})
    if not listed["ok"]:
        return error(listed)
    providers = listed["data"]["providers"]
    for p in providers:
        if wanted in (p["id"], p["name"]):
            found: str = p["id"]
            return found
    names = ", ".join(p["name"] for p in providers) or "none saved yet"
    return _fail(f"no saved provider {wanted[:80]!r} (saved: {names})")


async def _add(app: CashCodeApp, args: argparse.Namespace) -> int:
    from app.tasks.schedule import ScheduleError

    listed = await app.invoke("tasks.list", {})
    if not listed["ok"]:
        return error(listed)
    try:
        schedule = _schedule(args, listed["data"]["time_zone"])
    except ScheduleError as exc:
        return _fail(str(exc))
    draft: dict[str, Any] = {
        "name": args.name,
        "prompt": args.prompt,
        "schedule": schedule,
        "model": args.model,
    }
    if args.approval_mode is not None:  # else the app's default for new tasks
        draft["approval_mode"] = args.approval_mode
    if args.wait_for_answers is not None:
        draft["wait_for_answers_s"] = args.wait_for_answers
    if args.provider is not None:
        provider = await _provider_id(app, args.provider)
        if isinstance(provider, int):
            return provider
        draft["provider_id"] = provider
    if args.workspace is not None:
        draft["workspace"] = _absolute(args.workspace)
    if args.agent is not None:
        from app.cli.agent_ref import agent_id

        agent = await agent_id(app, args.agent)
        if isinstance(agent, int):
            return agent
        draft["agent_id"] = agent
    saved = await app.invoke("tasks.add", {"draft": draft})
    if not saved["ok"]:
        return error(saved)
    for warning in saved["data"]["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    task = saved["data"]["task"]
    print(f"Added task {task['name']!r} ({task['schedule_text']}); next run {_when(task['next_run'])}")
    return 0


_DRAFT_FIELDS = (
    "name", "prompt", "schedule", "provider_id", "model", "workspace", "approval_mode", "chat_mode",
    "missed_policy", "enabled", "wait_for_answers_s", "agent_id",
)  # fmt: skip


async def _edit(app: CashCodeApp, args: argparse.Namespace) -> int:
    task = await _find(app, args.name)
    if isinstance(task, int):
        return task
    draft = {k: task[k] for k in _DRAFT_FIELDS}
    changes = {
        "prompt": args.prompt,
        "approval_mode": args.approval_mode,
        "wait_for_answers_s": args.wait_for_answers,
    }
    draft.update({k: v for k, v in changes.items() if v is not None})
    saved = await app.invoke("tasks.update", {"task_id": task["id"], "draft": draft})
    if not saved["ok"]:
        return error(saved)
    for warning in saved["data"]["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    edited = saved["data"]["task"]
    print(f"Saved task {edited['name']!r} (waits for answers up to {edited['wait_for_answers_s']} s)")
    return 0


def _absolute(path: str) -> str:
    """A relative --workspace is read from the current folder (the route wants a full path)."""
    return os.path.abspath(os.path.expanduser(path))


async def _list(app: CashCodeApp, args: argparse.Namespace) -> int:
    listed = await app.invoke("tasks.list", {})
    if not listed["ok"]:
        return error(listed)
    tasks = listed["data"]["tasks"]
    if args.json:
        print(json.dumps(tasks, ensure_ascii=False, indent=2))
        return 0
    if not tasks:
        print("No tasks. Add one with `cashcode tasks add NAME --prompt TEXT --daily 07:30`.")
    for t in tasks:
        state = "" if t["enabled"] else "  (disabled)"
        print(
            f"{t['name']}  {t['schedule_text']}  next: {_when(t['next_run'])}"
            f"  last: {t['last_status'] or 'never run'}  {t['approval_mode']}{state}"
        )
    return 0


def _run_command(args: argparse.Namespace) -> int:
    """Like `ask`: the CLI's provider (flags, environment) is offered for a task without its own
    model; without one, the app's saved providers only."""

    async def main() -> int:
        from app.cli.runtime import CliError, open_plain_app, open_session

        fallback: dict[str, str] | None = None
        try:
            session = open_session(args, os.environ)
            app, fallback = session.app, session.model
        except CliError:
            app = open_plain_app(os.environ)
        try:
            return await _run(app, args, fallback)
        finally:
            await app.aclose()

    return asyncio.run(main())


async def _run(app: CashCodeApp, args: argparse.Namespace, fallback: dict[str, str] | None) -> int:
    task = await _find(app, args.name)
    if isinstance(task, int):
        return task
    payload: dict[str, Any] = {"task_id": task["id"], "wait": True, "approvals": "deny"}
    if fallback is not None:
        payload["model"] = fallback
    ran = await app.invoke("tasks.run", payload)
    if not ran["ok"]:
        return error(ran)
    run = ran["data"]
    if run["answer"] is not None:
        print(run["answer"])
    if run["error"]:
        label = "note" if run["status"] == "ok" else run["status"]
        print(f"{label}: {run['error']}", file=sys.stderr)
    return 0 if run["status"] == "ok" else 1


async def _history(app: CashCodeApp, args: argparse.Namespace) -> int:
    task = await _find(app, args.name)
    if isinstance(task, int):
        return task
    found = await app.invoke("tasks.history", {"task_id": task["id"], "limit": 200})
    if not found["ok"]:
        return error(found)
    runs = found["data"]["runs"]
    if args.json:
        print(json.dumps(runs, ensure_ascii=False, indent=2))
        return 0
    if not runs:
        print(f"{task['name']!r} has not run yet; next run {_when(task['next_run'])}.")
    for r in runs:
        took = f"  {r['duration_ms'] / 1000:.1f} s" if r["duration_ms"] else ""
        line = f"{_when(r['started_at'])}  {r['status']}  ({r['trigger']}){took}"
        if r["chat_id"]:
            line += f"  chat {r['chat_id']}"
        print(line)
        if r["error"]:
            print(f"  {r['error']}")
    return 0


def _toggle(enabled: bool) -> Body:
    async def body(app: CashCodeApp, args: argparse.Namespace) -> int:
        task = await _find(app, args.name)
        if isinstance(task, int):
            return task
        changed = await app.invoke("tasks.set_enabled", {"task_id": task["id"], "enabled": enabled})
        if not changed["ok"]:
            return error(changed)
        word = "Enabled" if enabled else "Disabled"
        print(f"{word} {task['name']!r}; next run {_when(changed['data']['next_run'])}")
        return 0

    return body


async def _remove(app: CashCodeApp, args: argparse.Namespace) -> int:
    task = await _find(app, args.name)
    if isinstance(task, int):
        return task
    removed = await app.invoke("tasks.remove", {"task_id": task["id"]})
    if not removed["ok"]:
        return error(removed)
    print(f"Removed {task['name']!r} and its history (its chats stay).")
    return 0


def _when(value: str | None) -> str:
    """A stored UTC time in this machine's local time, to the minute."""
    if value is None:
        return "none"
    from datetime import datetime

    return datetime.fromisoformat(value).astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()
