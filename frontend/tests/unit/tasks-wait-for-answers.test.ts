import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { TaskView } from "@/api/generated";
import TasksView from "@/views/TasksView.vue";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

const TASK: TaskView = {
  id: "t1", name: "nightly", prompt: "Tidy up", schedule: { kind: "daily", hour: 8, minute: 0 }, schedule_text: "daily 08:00",
  provider_id: null, model: null, workspace: null, approval_mode: "ask_writes", chat_mode: "same_chat", missed_policy: "run_once",
  enabled: true, wait_for_answers_s: 5_400, time_zone: "UTC", next_run: null, last_status: null, last_run_at: null, chat_id: null,
  created_at: "2026-03-27T12:00:00Z", agent_id: null,
};

async function mounted(tasks: TaskView[]) {
  const fake = new FakeTransport();
  fake.on("tasks.list", () => ({ tasks, time_zone: "UTC", default_approval_mode: "read_only" }));
  fake.on("tasks.preview", () => ({ next_runs: [], schedule_text: "daily 08:00", time_zone: "UTC" }));
  fake.on("tasks.add", () => ({ task: TASK, warnings: [] }));
  fake.on("tasks.update", () => ({ task: TASK, warnings: [] }));
  const { wrapper } = await mountWith(TasksView, { fake, path: "/tasks" });
  for (let i = 0; i < 5; i++) await tick();
  return { wrapper, fake };
}

describe("a task's wait for answers (issue 35)", () => {
  it("is a day for a new task and is sent as chosen", async () => {
    const { wrapper, fake } = await mounted([]);
    await wrapper.get('[data-testid="tasks-new"]').trigger("click");
    await tick();
    const wait = wrapper.get('[data-testid="tasks-wait"]');
    expect((wait.element as HTMLSelectElement).value).toBe("86400");
    expect(wait.findAll("option").map((o) => o.text())).toContain("Don't wait (fail at the first question)");
    await wrapper.get('[data-testid="tasks-name"]').setValue("brief");
    await wrapper.get('[data-testid="tasks-prompt"]').setValue("Say hi");
    await wait.setValue("0");
    await wrapper.get('[data-testid="tasks-form"]').trigger("submit");
    for (let i = 0; i < 3; i++) await tick();
    const sent = fake.callsTo("tasks.add") as { draft: { wait_for_answers_s: number } }[];
    expect(sent.map((s) => s.draft.wait_for_answers_s)).toEqual([0]);
  });

  it("keeps a value set elsewhere (the CLI) when a task is edited", async () => {
    const { wrapper, fake } = await mounted([TASK]);
    const edit = wrapper.findAll("button").find((b) => b.text() === "Edit");
    expect(edit).toBeDefined();
    await edit!.trigger("click");
    await tick();
    const wait = wrapper.get('[data-testid="tasks-wait"]');
    expect((wait.element as HTMLSelectElement).value).toBe("5400");
    expect(wait.find("option:checked").text()).toBe("5400 seconds");
    await wrapper.get('[data-testid="tasks-form"]').trigger("submit");
    for (let i = 0; i < 3; i++) await tick();
    const sent = fake.callsTo("tasks.update") as { draft: { wait_for_answers_s: number } }[];
    expect(sent.map((s) => s.draft.wait_for_answers_s)).toEqual([5_400]);
  });
});
