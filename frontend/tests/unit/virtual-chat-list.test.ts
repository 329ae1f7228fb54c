import { afterEach, describe, expect, it } from "vitest";
import type { ChatSummary } from "@/api/generated";
import AppSidebar from "@/components/sidebar/AppSidebar.vue";
import { FakeTransport } from "@/api/fake";
import { summary } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

const TOTAL = 2000;

/** 2,000 chats, newest first, served in keyset pages like the backend. */
function profile(): ChatSummary[] {
  return Array.from({ length: TOTAL }, (_, i) => {
    const minute = String(TOTAL - i).padStart(5, "0");
    return summary(`chat-${String(i).padStart(4, "0")}`, `Chat number ${i}`, `2026-11-${minute}`);
  });
}

function pagedFake(all: ChatSummary[]): FakeTransport {
  const fake = new FakeTransport();
  fake.on("chats.list", (req) => {
    const limit = req.limit ?? 100;
    const from = req.before ? all.findIndex((c) => c.id === req.before) + 1 : 0;
    const matching = req.title ? all.filter((c) => c.title.toLowerCase().includes(req.title!.toLowerCase())) : all;
    const page = matching.slice(from, from + limit);
    const more = from + limit < matching.length;
    return { chats: page, next_before: more ? page[page.length - 1].id : null };
  });
  return fake;
}

async function mounted() {
  const fake = pagedFake(profile());
  const ctx = await mountWith(AppSidebar, { fake });
  await ctx.chats.loadList();
  await tick();
  const list = ctx.wrapper.get('[data-testid="chat-list"]').element as HTMLElement;
  const rows = () => ctx.wrapper.findAll('[data-testid="chat-list-item"]');
  return { ...ctx, list, rows };
}

async function scrollTo(list: HTMLElement, top: number): Promise<void> {
  list.scrollTop = top;
  list.dispatchEvent(new Event("scroll"));
  await tick();
  await tick();
}

describe("virtual chat list", () => {
  it("renders only the rows in view, keeping the full scroll height with spacers", async () => {
    const { rows, chats, list } = await mounted();
    expect(chats.list).toHaveLength(100); // one page loaded, not 2,000
    expect(rows().length).toBeGreaterThan(10);
    expect(rows().length).toBeLessThan(40);
    const pads = [...list.querySelectorAll<HTMLElement>(".virtual-pad")].map((p) => parseInt(p.style.height, 10));
    expect(pads[0] + pads[1] + rows().length * 44).toBe(100 * 44);
  });

  it("loads the next pages while scrolling to the end, where the last chat appears", async () => {
    const { rows, chats, list, fake } = await mounted();
    for (let step = 0; step < 60 && chats.listNext !== null; step++) {
      await scrollTo(list, chats.list.length * 44);
    }
    expect(chats.list).toHaveLength(TOTAL);
    expect(chats.listNext).toBeNull();
    await scrollTo(list, TOTAL * 44);
    const titles = rows().map((r) => r.get(".chat-title").text());
    expect(titles[titles.length - 1]).toBe(`Chat number ${TOTAL - 1}`);
    expect(rows().length).toBeLessThan(40);
    const befores = fake.callsTo("chats.list").map((c) => (c as { before?: string }).before ?? null);
    expect(new Set(befores).size).toBe(befores.length); // each page requested once
  }, 30_000); // twenty pages on a busy CI machine

  it("moves focus with the arrow keys, Home and End, rendering rows that were not in the DOM", async () => {
    const { wrapper, list } = await mounted();
    const first = wrapper.get('[data-row-index="0"] .chat-open');
    (first.element as HTMLElement).focus();
    await first.trigger("keydown", { key: "ArrowDown" });
    await tick();
    expect(document.activeElement?.closest("[data-row-index]")?.getAttribute("data-row-index")).toBe("1");
    await wrapper.get('[data-row-index="1"] .chat-open').trigger("keydown", { key: "End" });
    await tick();
    const focused = document.activeElement?.closest<HTMLElement>("[data-row-index]");
    expect(focused?.dataset.rowIndex).toBe("99");
    expect(list.scrollTop).toBe(100 * 44 - 600); // row 99 at the bottom of the (fallback) viewport
    await wrapper.get('[data-row-index="99"] .chat-open').trigger("keydown", { key: "Home" });
    await tick();
    expect(document.activeElement?.closest("[data-row-index]")?.getAttribute("data-row-index")).toBe("0");
    expect(list.scrollTop).toBe(0);
  });

  it("updates in place: a new chat appears on top, a rename changes its row, a delete removes it", async () => {
    const { rows, chats } = await mounted();
    chats.applyBatch([{ type: "session_updated", chat_id: "fresh", title: "Brand new", updated_at: "2026-12-01T10:00:00Z" }]);
    await tick();
    expect(rows()[0].get(".chat-title").text()).toBe("Brand new");
    chats.applyBatch([{ type: "session_updated", chat_id: "chat-0003", title: "Renamed", updated_at: "2026-12-01T10:01:00Z" }]);
    await tick();
    expect(rows()[0].get(".chat-title").text()).toBe("Renamed");
    chats.applyBatch([{ type: "session_deleted", chat_id: "fresh" }]);
    await tick();
    expect(rows().map((r) => r.get(".chat-title").text())).not.toContain("Brand new");
    expect(chats.list).toHaveLength(100);
  });

  it("the title filter also finds chats that are not loaded yet", async () => {
    const { wrapper, rows, fake } = await mounted();
    await wrapper.get('[data-testid="chat-search"]').setValue("number 1999");
    await new Promise((r) => setTimeout(r, 250));
    await tick();
    expect(fake.callsTo("chats.list").some((c) => (c as { title?: string }).title === "number 1999")).toBe(true);
    expect(rows().map((r) => r.get(".chat-title").text())).toEqual(["Chat number 1999"]);
  });
});
