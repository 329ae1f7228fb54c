import { describe, expect, it } from "vitest";
import { emptyForm, fromSchedule, toSchedule } from "@/model/taskSchedule";

describe("task schedule builder", () => {
  it("turns each kind of form into its schedule and back", () => {
    const form = { ...emptyForm(), kind: "every" as const, everyCount: 90, everyUnit: "minutes" as const };
    expect(toSchedule(form).schedule).toEqual({ kind: "every", seconds: 5400 });
    expect(fromSchedule({ kind: "every", seconds: 7200 })).toMatchObject({ everyCount: 2, everyUnit: "hours" });
    const weekly = { ...emptyForm(), kind: "weekly" as const, day: "fri" as const, time: "07:05" };
    expect(toSchedule(weekly).schedule).toEqual({ kind: "weekly", day: "fri", hour: 7, minute: 5 });
    expect(fromSchedule({ kind: "weekly", day: "fri", hour: 7, minute: 5 })).toMatchObject({ day: "fri", time: "07:05" });
    expect(toSchedule({ ...emptyForm(), kind: "cron", cron: " 0 9 * * 1-5 " }).schedule).toEqual({
      kind: "cron",
      expr: "0 9 * * 1-5",
    });
    const once = toSchedule({ ...emptyForm(), kind: "once", at: "2030-01-02T03:04" }).schedule;
    expect(once?.kind).toBe("once");
    expect(fromSchedule(once as { kind: "once"; at: string }).at).toBe("2030-01-02T03:04");
  });

  it("names the field that cannot make a schedule", () => {
    expect(toSchedule({ ...emptyForm(), kind: "daily", time: "25:00" })).toEqual({ schedule: null, problem: "time" });
    expect(toSchedule({ ...emptyForm(), kind: "every", everyCount: 0 }).problem).toBe("count");
    expect(toSchedule({ ...emptyForm(), kind: "cron", cron: "  " }).problem).toBe("cron");
    expect(toSchedule({ ...emptyForm(), kind: "once", at: "" }).problem).toBe("at");
  });
});
