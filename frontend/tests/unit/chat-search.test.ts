import { afterEach, describe, expect, it, vi } from "vitest";
import type { SearchGroup, SearchHitView } from "@/api/generated";
import AppSidebar from "@/components/sidebar/AppSidebar.vue";
import SearchHits from "@/components/sidebar/SearchHits.vue";
import { buildTranscript } from "@/model/transcript";
import { message } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
  vi.useRealTimers();
});

const HIT: SearchHitView = {
  chat_id: "c1",
  chat_title: "Weather",
  cursor: 7,
  role: "assistant" as const,
  created_at: "2026-11-30T09:00:00Z",
  parts: [
    { text: "是的，今天", hit: false },
    { text: "天气很好", hit: true },
    { text: "<img src=x onerror=alert(1)>", hit: false },
  ],
  version: null,
  attachment: null,
};

function group(hits: SearchHitView[], hit_count = hits.length, more = false): SearchGroup {
  return { chat_id: hits[0].chat_id, chat_title: hits[0].chat_title, hit_count, more, hits };
}

describe("chat search", () => {
  it("searches all chats' text after a pause and renders highlighted snippets as text", async () => {
    vi.useFakeTimers();
    const { wrapper, fake, router } = await mountWith(AppSidebar);
    fake.on("chats.search", () => ({ groups: [group([HIT])] }));
    await wrapper.get('[data-testid="chat-search"]').setValue("天气");
    await wrapper.get('[data-testid="chat-search"]').setValue("天气很好");
    expect(fake.callsTo("chats.search")).toEqual([]); // debounced
    await vi.advanceTimersByTimeAsync(250);
    expect(fake.callsTo("chats.search")).toEqual([{ query: "天气很好", limit: 30 }]);
    const hit = wrapper.get('[data-testid="search-hit"]');
    expect(hit.findAll("mark").map((m) => m.text())).toEqual(["天气很好"]);
    // Raw text stays text: no element is created from it.
    expect(hit.find("img").exists()).toBe(false);
    expect(hit.text()).toContain("<img src=x onerror=alert(1)>");
    vi.useRealTimers();
    (wrapper.get('[data-testid="search-hit"]').element as HTMLButtonElement).click();
    await tick();
    expect(router.currentRoute.value.fullPath).toBe("/chat/c1?at=7");
  });

  it("clearing the box clears the hits", async () => {
    vi.useFakeTimers();
    const { wrapper, fake } = await mountWith(AppSidebar);
    fake.on("chats.search", () => ({ groups: [group([HIT])] }));
    await wrapper.get('[data-testid="chat-search"]').setValue("report");
    await vi.advanceTimersByTimeAsync(250);
    expect(wrapper.findAll('[data-testid="search-hit"]')).toHaveLength(1);
    await wrapper.get('[data-testid="chat-search"]').setValue("");
    expect(wrapper.find('[data-testid="search-hits"]').exists()).toBe(false);
  });

  it("groups hits per chat with the count, the version, the attachment and the date", async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2026-12-03T10:00:00Z"));
    const older = { ...HIT, cursor: 3, created_at: "2026-12-03T09:55:00Z", version: { index: 1, count: 2, cursor: 2 } };
    const file = { ...HIT, cursor: 1, role: "user" as const, attachment: "notes.txt", created_at: "2026-11-01T08:00:00Z" };
    const other = { ...HIT, chat_id: "c2", chat_title: "Other", cursor: 4 };
    const { wrapper } = await mountWith(SearchHits, {
      props: { groups: [group([HIT, older, file], 5), group([other], 30, true)], searching: false, error: "" },
    });
    const groups = wrapper.findAll('[data-testid="search-group"]');
    expect(groups.map((g) => g.find(".hit-title").text())).toEqual(["Weather", "Other"]);
    expect(groups.map((g) => g.get('[data-testid="search-hit-count"]').text())).toEqual(["5 hits", "30+ hits"]);
    const hits = groups[0].findAll('[data-testid="search-hit"]');
    expect(hits).toHaveLength(3);
    expect(hits.map((h) => h.find('[data-testid="search-hit-version"]').exists())).toEqual([false, true, false]);
    expect(hits[1].get('[data-testid="search-hit-version"]').text()).toBe("version 1/2");
    expect(hits[2].get('[data-testid="search-hit-attachment"]').text()).toBe("in attachment notes.txt");
    expect(hits.map((h) => h.get('[data-testid="search-hit-date"]').text())).toEqual(["3 d ago", "5 min ago", "2026-11-01"]);
    await hits[1].trigger("click");
    expect(wrapper.emitted("open")).toEqual([[older]]);
  });

  it("transcript entries know which stored messages they show", () => {
    const entries = buildTranscript([
      message(1, "user", "q"),
      message(2, "assistant", "", { tool_calls: [{ id: "x", name: "list_dir", arguments: "{}" }] }),
      message(3, "tool", "out", { tool_call_id: "x", name: "list_dir" }),
      message(4, "assistant", "a"),
    ]);
    expect(entries.map((e) => e.cursors)).toEqual([[1], [2, 3, 4]]);
  });
});

describe("search results read as text (issue 41)", () => {
  it("show a snippet without its Markdown marks, the matches still marked", async () => {
    const hit: SearchHitView = {
      ...HIT,
      parts: [
        { text: "## Setup **Install** the `cashcode` tool, see [the guide](https://x.test/g) and ", hit: false },
        { text: "weather", hit: true },
        { text: " ```python print(1)``` with *care*; a > b and snake_case stay", hit: false },
      ],
    };
    const wrapper = (await mountWith(SearchHits, { props: { groups: [group([hit])], searching: false, error: "" } })).wrapper;
    const snippet = wrapper.get(".hit-snippet").text();
    expect(snippet).toContain("Setup Install the cashcode tool, see the guide and weather print(1) with care; a > b and snake_case stay");
    expect(snippet).not.toMatch(/[*`#]|\]\(/);
    expect(wrapper.findAll("mark").map((m) => m.text())).toEqual(["weather"]);
  });
});
