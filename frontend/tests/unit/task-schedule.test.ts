import { describe, expect, it } from "vitest";
import { translate, type MessageKey, type Params } from "@/i18n";
import { emptyForm, fromSchedule, scheduleSummary, toSchedule } from "@/model/taskSchedule";

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

describe("schedule summaries", () => {
  const en = (key: MessageKey, params?: Params) => translate("en", key, params);
  const zh = (key: MessageKey, params?: Params) => translate("zh-CN", key, params);

  it("word every kind in the UI language, not the CLI's English flag form", () => {
    expect(scheduleSummary({ kind: "every", seconds: 120 }, zh)).toBe("每 2 分钟");
    expect(scheduleSummary({ kind: "every", seconds: 120 }, en)).toBe("every 2 minutes");
    expect(scheduleSummary({ kind: "every", seconds: 3600 }, en)).toBe("every hour");
    expect(scheduleSummary({ kind: "every", seconds: 3600 }, zh)).toBe("每小时");
    expect(scheduleSummary({ kind: "every", seconds: 172800 }, zh)).toBe("每 2 天");
    expect(scheduleSummary({ kind: "every", seconds: 90 }, zh)).toBe("每 90 秒");
    expect(scheduleSummary({ kind: "daily", hour: 8, minute: 5 }, zh)).toBe("每天 08:05");
    expect(scheduleSummary({ kind: "weekly", day: "fri", hour: 7, minute: 0 }, zh)).toBe("每星期五 07:00");
    expect(scheduleSummary({ kind: "weekly", day: "fri", hour: 7, minute: 0 }, en)).toBe("every Friday at 07:00");
    expect(scheduleSummary({ kind: "cron", expr: "0 9 * * 1-5" }, zh)).toBe("Cron：0 9 * * 1-5");
    expect(scheduleSummary({ kind: "once", at: "2030-01-02T03:04:00Z" }, zh)).toMatch(/^仅一次：2030-01-0\d \d\d:04$/);
  });
});
