import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import TasksView from "@/views/TasksView.vue";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

async function newTaskMode(defaultMode: "sandboxed" | "read_only"): Promise<string> {
  const fake = new FakeTransport();
  fake.on("tasks.list", () => ({ tasks: [], time_zone: "UTC", default_approval_mode: defaultMode }));
  const { wrapper } = await mountWith(TasksView, { fake, path: "/tasks" });
  for (let i = 0; i < 5; i++) await tick();
  await wrapper.get('[data-testid="tasks-new"]').trigger("click");
  await tick();
  return (wrapper.get('[data-testid="tasks-approval"]').element as HTMLSelectElement).value;
}

describe("a new task's approval mode (issue 36)", () => {
  it("is Sandboxed when the server says this machine has a sandbox", async () => {
    expect(await newTaskMode("sandboxed")).toBe("sandboxed");
  });

  it("stays read-only where no sandbox can start", async () => {
    expect(await newTaskMode("read_only")).toBe("read_only");
  });
});
