import { defineStore } from "pinia";
import { computed, ref } from "vue";
import type { AppEvent, InboxItem } from "@/api/generated";
import { closedNewest, pendingFirst } from "@/model/inbox";
import { ApiError } from "@/api/transport";
import { useApiStore } from "./api";

export type InboxDecision = "deny" | "once" | "always";

/**
 * The Inbox (issue 35): every question any run waits on. The count comes with every
 * `inbox_changed` event (the badge needs no call); the list is re-read after each change,
 * one read at a time, since an event names only the item, not its content.
 */
export const useInboxStore = defineStore("inbox", () => {
  const api = useApiStore();
  const items = ref<InboxItem[]>([]);
  /** Items waiting now (the sidebar's badge). */
  const pending = ref(0);
  const loaded = ref(false);
  /** The last Inbox answer came too late: this item, as another surface answered it first. */
  const lostTo = ref<InboxItem | null>(null);
  let reading: Promise<void> | null = null;
  let readAgain = false;

  const waiting = computed(() => pendingFirst(items.value));
  const closed = computed(() => closedNewest(items.value));

  /** Read the list (answered ones too); a change during a read reads once more after it. */
  function load(): Promise<void> {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      try {
        do {
          readAgain = false;
          const reply = await api.invoke("inbox.list", { include_answered: true });
          items.value = reply.items;
          pending.value = reply.items.filter((i) => i.status === "pending").length;
          loaded.value = true;
        } while (readAgain);
      } finally {
        reading = null;
      }
    })();
    return reading;
  }

  function applyBatch(batch: readonly AppEvent[]): void {
    let changed = false;
    for (const ev of batch) {
      if (ev.type !== "inbox_changed") continue;
      pending.value = ev.pending;
      changed = true;
    }
    if (changed) void load().catch(() => undefined);
  }

  /**
   * Answer an item from the Inbox; true when this answer counted. False when another surface
   * answered it first (the route's "conflict": the first answer wins): `lostTo` is then the
   * item as answered, kept here since the item's card leaves the waiting list at once.
   */
  async function answer(id: string, decision: InboxDecision | null, fields: Record<string, string> = {}): Promise<boolean> {
    lostTo.value = null;
    try {
      await api.invoke("inbox.answer", { id, decision, fields, via: "inbox" });
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "conflict") throw err;
      await load().catch(() => undefined);
      lostTo.value = byId(id);
      return false;
    }
    // Read before saying so: the view then moves the focus to what still waits.
    await load().catch(() => undefined);
    return true;
  }

  function byId(id: string): InboxItem | null {
    return items.value.find((i) => i.id === id) ?? null;
  }

  return { items, pending, loaded, lostTo, waiting, closed, load, applyBatch, answer, byId };
});
