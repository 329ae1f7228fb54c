import { describe, expect, it } from "vitest";
import { daysBetween, formatCost, formatMs, lastDays, stackByModel } from "@/components/usage/usageData";

const bucket = (day: string, model: string, input: number, output: number, cost: number | null) => ({
  day,
  provider_id: "p",
  model,
  turns: 1,
  input_tokens: input,
  output_tokens: output,
  cost,
});

describe("usage data", () => {
  it("lists every day of a range, inclusive, across a month end", () => {
    expect(daysBetween("2026-01-30", "2026-02-02")).toEqual(["2026-01-30", "2026-01-31", "2026-02-01", "2026-02-02"]);
    expect(daysBetween("2026-02-02", "2026-02-01")).toEqual([]);
  });

  it("gives the last N days ending today in UTC", () => {
    expect(lastDays(7, new Date(Date.UTC(2026, 2, 3, 23, 59)))).toEqual(["2026-02-25", "2026-03-03"]);
  });

  it("stacks one series per model with zeros for missing days; unknown cost counts as 0", () => {
    const days = ["2026-01-01", "2026-01-02"];
    const buckets = [bucket("2026-01-02", "b", 5, 5, null), bucket("2026-01-01", "a", 1, 2, 0.5), bucket("2026-01-09", "a", 9, 9, 9)];
    expect(stackByModel(buckets, days, "tokens")).toEqual([
      { label: "p / a", values: [3, 0] },
      { label: "p / b", values: [0, 10] },
    ]);
    expect(stackByModel(buckets, days, "cost")).toEqual([
      { label: "p / a", values: [0.5, 0] },
      { label: "p / b", values: [0, 0] },
    ]);
    expect(stackByModel([], days, "tokens")).toEqual([]);
  });

  it("formats unknown cost as null and durations readably", () => {
    expect(formatCost(null)).toBeNull();
    expect(formatCost(0.001234)).toBe("0.0012");
    expect(formatCost(3)).toBe("3.00");
    expect(formatMs(1534)).toBe("1.5 s");
    expect(formatMs(12.4)).toBe("12 ms");
    expect(formatMs(null)).toBe("—");
  });
});

describe("usage labels", () => {
  it("names a provider by its saved name, falling back to its id", () => {
    const b = { day: "2026-01-01", provider_id: "uuid-1", model: "m", turns: 1, input_tokens: 1, output_tokens: 1, cost: null };
    const other = { ...b, provider_id: "gone" };
    const series = stackByModel([b, other], ["2026-01-01"], "tokens", new Map([["uuid-1", "Work"]]));
    expect(series.map((s) => s.label)).toEqual(["gone / m", "Work / m"]);
  });
});
