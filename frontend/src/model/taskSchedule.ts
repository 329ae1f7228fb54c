/** The Tasks view's schedule builder: form fields ⇄ the `tasks.*` schedule models (pure). */
import type { TaskView, TaskDraft } from "@/api/generated";
import type { MessageKey, Params } from "@/i18n";

export type ScheduleKind = "every" | "daily" | "weekly" | "cron" | "once";
export type EveryUnit = "minutes" | "hours" | "days";
export type Weekday = "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";
export const WEEKDAYS: readonly Weekday[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const UNIT_S: Record<EveryUnit, number> = { minutes: 60, hours: 3600, days: 86400 };

export interface ScheduleForm {
  kind: ScheduleKind;
  everyCount: number;
  everyUnit: EveryUnit;
  time: string; // HH:MM (daily, weekly)
  day: Weekday;
  cron: string;
  at: string; // a datetime-local value, read in the browser's zone
}

export function emptyForm(): ScheduleForm {
  return { kind: "daily", everyCount: 1, everyUnit: "hours", time: "08:00", day: "mon", cron: "0 9 * * 1-5", at: "" };
}

/** The schedule to send, or null while the fields cannot make one (the message says why). */
export function toSchedule(form: ScheduleForm): { schedule: TaskDraft["schedule"] | null; problem: string | null } {
  const time = /^(\d{1,2}):(\d{2})$/.exec(form.time.trim());
  const hour = time ? Number(time[1]) : -1;
  const minute = time ? Number(time[2]) : -1;
  const timeOk = hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59;
  switch (form.kind) {
    case "every":
      if (!Number.isInteger(form.everyCount) || form.everyCount < 1) return { schedule: null, problem: "count" };
      return { schedule: { kind: "every", seconds: form.everyCount * UNIT_S[form.everyUnit] }, problem: null };
    case "daily":
      return timeOk ? { schedule: { kind: "daily", hour, minute }, problem: null } : { schedule: null, problem: "time" };
    case "weekly":
      return timeOk
        ? { schedule: { kind: "weekly", day: form.day, hour, minute }, problem: null }
        : { schedule: null, problem: "time" };
    case "cron":
      return form.cron.trim() ? { schedule: { kind: "cron", expr: form.cron.trim() }, problem: null } : { schedule: null, problem: "cron" };
    case "once": {
      const at = new Date(form.at);
      return form.at && !Number.isNaN(at.getTime())
        ? { schedule: { kind: "once", at: at.toISOString() }, problem: null }
        : { schedule: null, problem: "at" };
    }
  }
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** A stored task's schedule back into the form (edit). */
export function fromSchedule(schedule: TaskView["schedule"]): ScheduleForm {
  const form = emptyForm();
  form.kind = schedule.kind;
  if (schedule.kind === "every") {
    const unit: EveryUnit = schedule.seconds % 86400 === 0 ? "days" : schedule.seconds % 3600 === 0 ? "hours" : "minutes";
    form.everyUnit = unit;
    form.everyCount = Math.max(1, Math.round(schedule.seconds / UNIT_S[unit]));
  } else if (schedule.kind === "daily" || schedule.kind === "weekly") {
    form.time = `${pad(schedule.hour)}:${pad(schedule.minute)}`;
    if (schedule.kind === "weekly") form.day = schedule.day;
  } else if (schedule.kind === "cron") {
    form.cron = schedule.expr;
  } else {
    const d = new Date(schedule.at);
    form.at = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }
  return form;
}

/** A UTC time from the backend, shown in the browser's local time to the minute. */
export function localTime(iso: string | null): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

type Translate = (key: MessageKey, params?: Params) => string;

/** Weekday names of the form's day select, for the weekly summary. */
const DAY_KEYS: Record<Weekday, MessageKey> = {
  mon: "tasks.day.mon", tue: "tasks.day.tue", wed: "tasks.day.wed", thu: "tasks.day.thu",
  fri: "tasks.day.fri", sat: "tasks.day.sat", sun: "tasks.day.sun",
};

/**
 * A schedule as one line for the task list, in the UI language ("every 2 minutes", "每 2 分钟").
 * The backend's `schedule_text` is the CLI's English flag form ("every 2m"), kept for the terminal.
 */
export function scheduleSummary(schedule: TaskView["schedule"], t: Translate): string {
  switch (schedule.kind) {
    case "every": {
      const s = schedule.seconds;
      if (s % 86400 === 0) return t("tasks.summary.days", { count: s / 86400 });
      if (s % 3600 === 0) return t("tasks.summary.hours", { count: s / 3600 });
      if (s % 60 === 0) return t("tasks.summary.minutes", { count: s / 60 });
      return t("tasks.summary.seconds", { count: s });
    }
    case "daily":
      return t("tasks.summary.daily", { time: `${pad(schedule.hour)}:${pad(schedule.minute)}` });
    case "weekly":
      return t("tasks.summary.weekly", { day: t(DAY_KEYS[schedule.day]), time: `${pad(schedule.hour)}:${pad(schedule.minute)}` });
    case "cron":
      return t("tasks.summary.cron", { expr: schedule.expr });
    case "once":
      return t("tasks.summary.once", { time: localTime(schedule.at) });
  }
}
