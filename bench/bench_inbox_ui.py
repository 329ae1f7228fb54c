"""Waiting runs and the UI (issue 35): 100 waiting runs across 100 chats leave the UI's first
paint and `chats.list` within 1.1x of none waiting.

Method (one real `cashcode serve` on a temp profile, the scripted LLM `app/testing/fake_llm`
over loopback HTTP, Debian's Chromium through Playwright; everything in the same run)
- Setup over REST (the serve.json bearer token): a provider on the scripted server, approval
  mode "ask writes", `--chats` chats each with one finished turn (so each has a title, a
  preview and two messages).
- Phases, alternated so both kinds meet the same drift of the machine's load: "idle" (the
  floor: nothing waits), then `--cycles` times "waiting" (every chat sends a turn whose model
  calls `write_file`; each turn waits on its approval, an Inbox item; measured once all
  `--chats` items are pending) followed by "idle again" (every item denied, the turns ended).
- Each phase (the page loads first, then the calls): `chats.list` as the sidebar asks for it
  (`{"limit": 100}`) over REST, `--calls` calls on a new connection each: the median wall
  time, and the serve process's CPU time per call over the block (/proc/PID/stat; less
  sensitive to the other work on a shared machine).
  And `--pages` fresh page loads of the UI in one Chromium context (a new page each, after one
  uncounted load), from navigation start: first-contentful-paint (the browser's paint timing),
  the app's own `composer` mark (frontend/src/model/startupMarks.ts: the composer painted) and
  the first chat-list row painted (a MutationObserver sees a `chat-list-item`, then rAF → task).
- Ratio = median of the waiting samples / median of the idle samples.

Run from the repo root:
    .venv/bin/python bench/bench_inbox_ui.py [--chats 100] [--calls 100] [--pages 6] [--cycles 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.testing.fake_llm import FakeLLMServer  # noqa: E402
from tests.e2e.browser_helpers import launch_chromium  # noqa: E402
from tests.server.process import ServeProcess, free_port, isolated_env, serve_process  # noqa: E402

KEY = "sk-bench-123456"
LIST_QUERY = {"limit": 100}  # what the sidebar asks for first (frontend/src/stores/chats.ts)

# Record when the first chat-list row is painted: the observer sees the row in the DOM, the rAF
# callback of that frame queues a task, which runs after the frame's style, layout and paint.
LIST_PAINT_JS = """
(() => {
  const seen = () => document.querySelector('[data-testid=chat-list-item]');
  const observer = new MutationObserver(() => {
    if (!seen()) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { window.__benchListPainted = performance.now(); }, 0));
  });
  observer.observe(document, { childList: true, subtree: true });
})();
"""

READ_MARKS_JS = """
() => {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const composer = window.__cashcodeMarks?.composer;
  return {
    fcp: fcp ? fcp.startTime : null,
    composer: composer ? composer - performance.timeOrigin : null,
    list: window.__benchListPainted ?? null,
  };
}
"""


def load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def write(n: int) -> dict[str, Any]:
    """A `write_file` call of a new file each time (a write that changes nothing is not asked)."""
    return {"tool_calls": [{"name": "write_file", "arguments": {"path": f"n{n}.txt", "content": "hi"}}]}


class Api:
    """The routes over REST, as a script calls them (the bearer token of serve.json). A new
    connection per call: on a kept-alive connection the small request and reply meet the
    delayed-ACK timer (~40 ms a call here), which would hide the route's own time."""

    def __init__(self, served: ServeProcess) -> None:
        self.base_url = served.base_url
        self.headers = {**served.bearer, "content-type": "application/json"}
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def call(self, route: str, payload: dict[str, Any]) -> Any:
        body = json.dumps(payload).encode()
        request = urllib.request.Request(
            f"{self.base_url}/api/invoke/{route}", data=body, headers=self.headers
        )
        with self.opener.open(request, timeout=120) as response:
            reply = json.loads(response.read())
        if not reply.get("ok"):
            raise SystemExit(f"{route} failed: {reply}")
        return reply.get("data")


def until(check: Callable[[], bool], what: str, timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)


def running(api: Api) -> int:
    page = api.call("chats.list", {"limit": 500})
    return sum(1 for chat in page["chats"] if chat["running"])


def pending(api: Api) -> list[dict[str, Any]]:
    return [item for item in api.call("inbox.list", {})["items"] if item["status"] == "pending"]


def server_cpu_s(pid: int) -> float:
    """User + system CPU time of the serve process (/proc/PID/stat), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def list_ms(api: Api, calls: int, pid: int) -> tuple[list[float], float]:
    """Wall time of each call, and the server's CPU time per call over all of them (less
    sensitive than wall time to the other work on a shared machine)."""
    time.sleep(1.0)  # the page loads before have settled
    times = []
    cpu_before = server_cpu_s(pid)
    for _ in range(calls):
        started = time.perf_counter()
        api.call("chats.list", LIST_QUERY)
        times.append((time.perf_counter() - started) * 1e3)
    return times, (server_cpu_s(pid) - cpu_before) / calls * 1e3


def paints(context: Any, ui_url: str, pages: int, chats: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"fcp": [], "composer": [], "list": []}
    for _ in range(pages):
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(ui_url)
        page.wait_for_function("() => window.__benchListPainted && window.__cashcodeMarks?.composer")
        shown = page.locator("[data-testid=chat-list-item]").count()
        assert shown >= min(chats, 10), f"only {shown} chats listed"  # a virtual list: the rows in view
        marks: dict[str, float | None] = page.evaluate(READ_MARKS_JS)
        for name, value in marks.items():
            assert value is not None, marks
            out[name].append(value)
        page.close()
    return out


def measure(
    phase: str, api: Api, pid: int, context: Any, ui_url: str, args: argparse.Namespace
) -> dict[str, list[float]]:
    paints(context, ui_url, 1, args.chats)  # one uncounted load: caches and the server warm
    got = paints(context, ui_url, args.pages, args.chats)
    got["chats.list"], cpu_per_call = list_ms(api, args.calls, pid)
    got["chats.list cpu"] = [cpu_per_call]
    print(
        f"  {phase}: chats.list {statistics.median(got['chats.list']):.1f} ms"
        f" (server CPU {cpu_per_call:.2f} ms a call),"
        f" FCP {statistics.median(got['fcp']):.0f} ms, composer {statistics.median(got['composer']):.0f} ms,"
        f" list painted {statistics.median(got['list']):.0f} ms ({load()})",
        flush=True,
    )
    return got


def main(args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as llm:
        env = isolated_env(Path(tmp), {"CASHCODE_DREAM": "off"})
        command = [str(ROOT / ".venv" / "bin" / "cashcode"), "serve"]
        args_serve = ["--no-open", "--port", str(free_port())]
        with serve_process(args_serve, env, cwd=ROOT, command=command) as served, sync_playwright() as pw:
            api = Api(served)
            provider = api.call(
                "providers.save",
                {"name": "Fake", "kind": "chat_completions", "base_url": llm.openai_base_url, "api_key": KEY},
            )
            fields = {k: provider[k] for k in ("id", "name", "kind", "base_url", "api_key")}
            api.call("providers.save", {**fields, "parallel_requests": 0})
            api.call("settings.update", {"approval_mode": "ask_writes"})
            model = {"provider_id": provider["id"], "model": "fake-model"}

            llm.script(*({"text": f"answer {i}"} for i in range(args.chats)))
            chats = [api.call("chats.create", {})["id"] for _ in range(args.chats)]
            for i, chat in enumerate(chats):
                api.call("chat.send", {"chat_id": chat, "text": f"question {i}", "model": model})
            until(lambda: len(llm.model_requests()) >= args.chats and running(api) == 0, "the first turns")

            browser = launch_chromium(pw)
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            context.add_init_script(LIST_PAINT_JS)
            first = context.new_page()
            first.goto(served.start_url)  # the start token works once: then the UI's own address
            first.wait_for_function("() => window.__cashcodeMarks?.composer")
            ui_url = first.url.split("#")[0] + "#/"
            first.close()

            pid = served.proc.pid
            samples: dict[str, dict[str, list[float]]] = {"idle": {}, "waiting": {}}

            def keep(kind: str, got: dict[str, list[float]]) -> None:
                for name, values in got.items():
                    samples[kind].setdefault(name, []).extend(values)

            # idle, waiting, idle, waiting, …, idle: both kinds spread over the run's load.
            keep("idle", measure("idle", api, pid, context, ui_url, args))
            for cycle in range(args.cycles):
                llm.script(*(write(cycle * args.chats + i) for i in range(args.chats)))
                for chat in chats:
                    api.call("chat.send", {"chat_id": chat, "text": "write", "model": model})
                until(lambda: len(pending(api)) >= args.chats, f"{args.chats} pending approvals")
                keep("waiting", measure(f"{args.chats} waiting", api, pid, context, ui_url, args))
                items = pending(api)
                llm.script(*({"text": "denied"} for _ in items))
                for item in items:
                    api.call("inbox.answer", {"id": item["id"], "decision": "deny"})
                until(lambda: not pending(api) and running(api) == 0, "the denied turns to end")
                keep("idle", measure("idle again", api, pid, context, ui_url, args))
            browser.close()

    print(f"\n{args.chats} chats, {args.cycles} waiting phases between idle ones; per phase chats.list"
          f" ×{args.calls} over REST and {args.pages} page loads")  # fmt: skip
    for name, label in (
        ("chats.list", "`chats.list` {limit: 100} over REST (new connection each), median wall"),
        ("chats.list cpu", "`chats.list`: the server's CPU time a call, median of phases"),
        ("fcp", "first-contentful-paint"),
        ("composer", "`composer` mark (composer painted)"),
        ("list", "first chat-list row painted"),
    ):
        floor = statistics.median(samples["idle"][name])
        wait = statistics.median(samples["waiting"][name])
        ratio = wait / floor
        verdict = "met" if ratio <= 1.1 else "NOT met"
        print(f"| {label} | {floor:.2f} ms | {wait:.2f} ms | {ratio:.2f}x | ≤ 1.1x | {verdict} |")
    print(load())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chats", type=int, default=100)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--pages", type=int, default=6)
    parser.add_argument("--cycles", type=int, default=2)
    main(parser.parse_args())
