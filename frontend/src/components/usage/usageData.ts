import type { UsageBucketView } from "@/api/generated";

/** The UTC days from `first` to `last` inclusive, as YYYY-MM-DD (at most `limit`). */
export function daysBetween(first: string, last: string, limit = 400): string[] {
  const out: string[] = [];
  const day = new Date(`${first}T00:00:00Z`);
  const end = new Date(`${last}T00:00:00Z`);
  while (day <= end && out.length < limit) {
    out.push(day.toISOString().slice(0, 10));
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return out;
}

/** `days` days ending today (UTC), as [first, last]. */
export function lastDays(days: number, today: Date = new Date()): [string, string] {
  const last = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const first = new Date(last);
  first.setUTCDate(first.getUTCDate() - (days - 1));
  return [first.toISOString().slice(0, 10), last.toISOString().slice(0, 10)];
}

export type Metric = "tokens" | "cost";

export interface Series {
  label: string; // "provider / model"
  values: number[]; // one per day
}

/** One stacked series per provider/model, aligned on `days`; missing days are 0. `names` maps
 * provider ids (UUIDs) to the names people gave them. */
export function stackByModel(
  buckets: UsageBucketView[],
  days: string[],
  metric: Metric,
  names: ReadonlyMap<string, string> = new Map(),
): Series[] {
  const index = new Map(days.map((d, i) => [d, i]));
  const series = new Map<string, number[]>();
  for (const b of buckets) {
    const at = index.get(b.day);
    if (at === undefined) continue;
    const label = `${names.get(b.provider_id) ?? b.provider_id} / ${b.model}`;
    let values = series.get(label);
    if (!values) {
      values = new Array<number>(days.length).fill(0);
      series.set(label, values);
    }
    values[at] += metric === "tokens" ? b.input_tokens + b.output_tokens : (b.cost ?? 0);
  }
  return [...series.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([label, values]) => ({ label, values }));
}

export function formatCost(cost: number | null | undefined): string | null {
  if (cost === null || cost === undefined) return null;
  return cost < 0.01 && cost > 0 ? cost.toFixed(4) : cost.toFixed(2);
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
