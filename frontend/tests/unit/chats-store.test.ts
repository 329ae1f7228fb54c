import { describe, expect, it, vi } from "vitest";
import type { AppEvent } from "@/api/generated";
import { ApiError } from "@/api/transport";
import type { AssistantEntry } from "@/model/transcript";
import { KEPT_HISTORIES } from "@/stores/chats";
import { message, setup, summary, turn } from "./helpers";

function lastAssistant(entries: ReturnType<ReturnType<typeof setup>["chats"]["entries"]>): AssistantEntry {
  const last = entries[entries.length - 1];
  if (!last || last.kind !== "assistant") throw new Error("no assistant entry");
  return last;
}

function text(entry: AssistantEntry): string {
  return entry.parts.map((p) => (p.kind === "text" ? p.text : "")).join("");
}

describe("chats store: streaming", () => {
  it("paints deltas once per frame and keeps them in order", () => {
    const { chats, frames, runFrames } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started("hello"), t.delta("Hel"), t.delta("lo")]);
    chats.applyBatch([t.delta(" world")]);
    expect(frames.length).toBe(1); // one frame scheduled for three deltas
    expect(text(lastAssistant(chats.entries("c1")))).toBe("");
    runFrames();
    expect(text(lastAssistant(chats.entries("c1")))).toBe("Hello world");
  });

  it("2,000 delta events in batches arrive complete and in order", () => {
    const { chats, runFrames } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started()]);
    const expected: string[] = [];
    let batch: AppEvent[] = [];
    for (let i = 0; i < 2000; i++) {
      const piece = `${i},`;
      expected.push(piece);
      batch.push(t.delta(piece));
      if (batch.length === 37) {
        chats.applyBatch(batch);
        batch = [];
        if (i % 3 === 0) runFrames(); // some frames paint mid-stream
      }
    }
    chats.applyBatch(batch);
    chats.applyBatch([t.done()]);
    runFrames();
    const entry = lastAssistant(chats.entries("c1"));
    expect(text(entry)).toBe(expected.join(""));
    expect(entry.state).toBe("done");
  });

  it("flushes pending text before a tool call so parts stay in order", () => {
    const { chats, runFrames } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.delta("Let me look."), t.tool("k1"), t.delta("Found it.")]);
    runFrames();
    const kinds = lastAssistant(chats.entries("c1")).parts.map((p) => p.kind);
    expect(kinds).toEqual(["text", "tool", "text"]);
  });

  it("tracks tool calls by call_id: running, ok and error", () => {
    const { chats } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.tool("k1"), t.tool("k2")]);
    const tools = () => lastAssistant(chats.entries("c1")).parts.flatMap((p) => (p.kind === "tool" ? [p.tool] : []));
    expect(tools().map((x) => x.status)).toEqual(["running", "running"]);
    chats.applyBatch([t.result("k2", false, "boom"), t.result("k1", true, "data")]);
    expect(tools().map((x) => [x.callId, x.status, x.output])).toEqual([
      ["k1", "ok", "data"],
      ["k2", "error", "boom"],
    ]);
  });

  it("keeps reasoning apart from the answer", () => {
    const { chats, runFrames } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.delta("hmm", "reasoning"), t.delta("Answer")]);
    runFrames();
    expect(lastAssistant(chats.entries("c1")).parts.map((p) => p.kind)).toEqual(["reasoning", "text"]);
  });

  it("sets and clears the running flag", () => {
    const { chats } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started()]);
    expect(chats.isRunning("c1")).toBe(true);
    chats.applyBatch([t.done("final")]);
    expect(chats.isRunning("c1")).toBe(false);
    expect(text(lastAssistant(chats.entries("c1")))).toBe("final"); // never streamed: filled from turn_done
  });
});

describe("chats store: approvals", () => {
  it("queues approvals and removes them when resolved", () => {
    const { chats } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.tool("k1", "exec"), t.approval("a1", "k1"), t.approval("a1", "k1")]);
    expect(chats.runtime("c1").approvals.map((a) => a.approval_id)).toEqual(["a1"]);
    const tool = () => lastAssistant(chats.entries("c1")).parts[0];
    expect(tool()).toMatchObject({ kind: "tool", tool: { status: "awaiting" } });
    chats.applyBatch([t.resolved("a1", "deny")]);
    expect(chats.runtime("c1").approvals).toEqual([]);
    expect(tool()).toMatchObject({ kind: "tool", tool: { status: "denied" } });
  });

  it("answers through chat.approve and drops the request at once", async () => {
    const { chats, fake } = setup();
    fake.on("chat.approve", () => ({ ok: true }));
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.tool("k1", "exec"), t.approval("a1", "k1")]);
    await chats.answer("c1", "a1", "always");
    expect(fake.callsTo("chat.approve")).toEqual([{ approval_id: "a1", decision: "always", via: "chat" }]);
    expect(chats.runtime("c1").approvals).toEqual([]);
  });

  it("clears a turn's approvals when the turn ends", () => {
    const { chats } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.approval("a1", "k1"), t.cancelled()]);
    expect(chats.runtime("c1").approvals).toEqual([]);
    expect(lastAssistant(chats.entries("c1")).state).toBe("cancelled");
  });
});

describe("chats store: errors", () => {
  it("keeps the provider's message on a failed turn", () => {
    const { chats } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.failed("Rate limited: retry in 20 s.")]);
    expect(chats.runtime("c1").error).toMatchObject({ code: "provider_error", message: "Rate limited: retry in 20 s." });
    expect(lastAssistant(chats.entries("c1")).state).toBe("failed");
    expect(chats.isRunning("c1")).toBe(false);
  });

  it("shows a send failure as the chat's error", async () => {
    const { chats, fake } = setup();
    fake.on("chat.send", () => {
      throw new ApiError("chat.send", "invalid", "No model configured. Add a provider in Settings.");
    });
    expect(await chats.send("c1", "hi", null)).toBe(false);
    expect(chats.runtime("c1").error).toMatchObject({ code: "invalid", message: "No model configured. Add a provider in Settings." });
  });

  it("retry calls chat.retry and clears the error", async () => {
    const { chats, fake } = setup();
    fake.on("chat.retry", ({ chat_id }) => ({ chat_id, turn_id: "t2" }));
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.failed()]);
    await chats.retry("c1");
    expect(fake.callsTo("chat.retry")).toEqual([{ chat_id: "c1" }]);
    expect(chats.runtime("c1").error).toBeNull();
  });
});

describe("chats store: sessions and history", () => {
  it("session_updated renames, adds unknown chats and wins over an older snapshot", async () => {
    const { chats, fake } = setup();
    fake.on("chats.list", () => ({ chats: [summary("c1", "Old title", "2026-11-30T09:00:00Z")], next_before: null }));
    chats.applyBatch([{ type: "session_updated", chat_id: "c1", title: "Automatic title", updated_at: "2026-11-30T09:01:00Z" }]);
    await chats.loadList(); // the snapshot was taken before the update
    expect(chats.summaries.c1.title).toBe("Automatic title");
    chats.applyBatch([{ type: "session_updated", chat_id: "c9", title: "From the CLI", updated_at: "2026-11-30T09:02:00Z" }]);
    expect(chats.list.map((c) => c.id)).toEqual(["c9", "c1"]);
  });

  it("a turn this window did not start (a scheduled run, Quick Ask) puts its chat in the list and refreshes it when done", async () => {
    const { chats, fake } = setup();
    let count = 0;
    fake.on("chats.get", ({ chat_id }) => ({
      chat: { ...summary(chat_id, "Daily digest", `2026-11-30T09:0${count}:00Z`), message_count: count },
      messages: [], has_more: false, viewing: null,
    }));
    const t = turn("c7", "t1");
    chats.applyBatch([t.started("digest")]);
    await vi.waitFor(() => expect(chats.list.map((c) => c.id)).toEqual(["c7"]));
    expect(chats.summaries.c7.running).toBe(true);
    count = 2;
    chats.applyBatch([t.done("Here is the digest.")]);
    await vi.waitFor(() => expect(chats.summaries.c7.message_count).toBe(2));
    expect(chats.summaries.c7.running).toBe(false);
    expect(fake.callsTo("chats.get")).toEqual([{ chat_id: "c7", limit: 1 }, { chat_id: "c7", limit: 1 }]);
  });

  it("session_deleted forgets the chat", () => {
    const { chats } = setup();
    chats.applyBatch([{ type: "session_updated", chat_id: "c1", title: "x", updated_at: "2026-11-30T09:01:00Z" }]);
    chats.open("c1");
    chats.applyBatch([{ type: "session_deleted", chat_id: "c1" }]);
    expect(chats.list).toEqual([]);
    expect(chats.currentId).toBeNull();
  });

  it("builds the transcript from history and swaps the live turn for stored messages", async () => {
    const { chats, fake } = setup();
    const stored = [
      message(1, "user", "hi"),
      message(2, "assistant", "", { tool_calls: [{ id: "k1", name: "read_file", arguments: "{}" }] }),
      message(3, "tool", "file body", { tool_call_id: "k1" }),
      message(4, "assistant", "Done."),
    ];
    let messages = stored.slice(0, 0);
    fake.on("chats.get", ({ chat_id }) => ({ chat: summary(chat_id), messages, has_more: false, viewing: null }));
    chats.open("c1");
    await Promise.resolve();
    await Promise.resolve();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started("hi"), t.delta("Done.")]);
    expect(chats.entries("c1").map((e) => e.kind)).toEqual(["user", "assistant"]);
    messages = stored;
    chats.applyBatch([t.done("Done.")]);
    await new Promise((r) => setTimeout(r, 0));
    expect(chats.runtime("c1").live).toBeNull();
    const entries = chats.entries("c1");
    expect(entries.map((e) => e.kind)).toEqual(["user", "assistant"]);
    const assistant = lastAssistant(entries);
    expect(assistant.parts.map((p) => p.kind)).toEqual(["tool", "text"]);
    expect(assistant.parts[0]).toMatchObject({ tool: { output: "file body", status: "ok" } });
  });

  it("rename and delete go through the routes", async () => {
    const { chats, fake } = setup();
    fake.on("chats.rename", ({ chat_id, title }) => ({ ...summary(chat_id), title, updated_at: "2026-11-30T10:00:00Z" }));
    fake.on("chats.delete", () => ({ ok: true }));
    chats.applyBatch([{ type: "session_updated", chat_id: "c1", title: "x", updated_at: "2026-11-30T09:01:00Z" }]);
    await chats.rename("c1", "Renamed");
    expect(chats.summaries.c1.title).toBe("Renamed");
    await chats.remove("c1");
    expect(chats.list).toEqual([]);
  });
});

describe("chats store: opening a long chat", () => {
  it("paints the newest 50 messages first, then fills the page up to 200 after that paint", async () => {
    const { chats, fake } = setup();
    const all = Array.from({ length: 1000 }, (_, i) => message(i + 1, i % 2 ? "assistant" : "user", `m${i + 1}`));
    fake.on("chats.get", ({ chat_id, before_cursor, limit }) => {
      const end = before_cursor ? before_cursor - 1 : all.length;
      const start = Math.max(0, end - (limit ?? 200));
      return { chat: summary(chat_id), messages: all.slice(start, end), has_more: start > 0, viewing: null };
    });
    await chats.loadHistory("c1");
    expect(chats.runtime("c1").history?.map((m) => m.cursor)).toEqual(all.slice(950).map((m) => m.cursor));
    await vi.waitFor(() => expect(chats.runtime("c1").history).toHaveLength(200));
    expect(fake.callsTo("chats.get")).toEqual([
      { chat_id: "c1", limit: 50 },
      { chat_id: "c1", before_cursor: 951, limit: 150 },
    ]);
    expect(chats.runtime("c1").history?.[0].cursor).toBe(801);
    expect(chats.runtime("c1").hasMore).toBe(true);
    await Promise.all([chats.loadOlder("c1"), chats.loadOlder("c1")]); // a double click loads one page
    expect(chats.runtime("c1").history).toHaveLength(400);
    expect(new Set(chats.runtime("c1").history?.map((m) => m.cursor)).size).toBe(400);
    // A re-read of the shown chat (as after a turn) takes a full page at once: nothing shrinks.
    await chats.loadHistory("c1");
    expect(fake.callsTo("chats.get").at(-1)).toEqual({ chat_id: "c1", limit: 200 });
    expect(chats.runtime("c1").history).toHaveLength(200);
  });
});

describe("chats store: long use", () => {
  it("keeps the loaded histories of the chats opened last only, and reloads a dropped one", async () => {
    const { chats, fake } = setup();
    const gets: string[] = [];
    fake.on("chats.get", ({ chat_id }) => {
      gets.push(chat_id);
      return { chat: summary(chat_id), messages: [message(1, "user", `hi ${chat_id}`)], has_more: false, viewing: null };
    });
    const settle = () => new Promise((r) => setTimeout(r, 0));
    const ids = Array.from({ length: KEPT_HISTORIES + 4 }, (_, i) => `c${i}`);
    const t = turn("c0", "t9");
    for (const id of ids) {
      chats.open(id);
      await settle();
      if (id === "c0") chats.applyBatch([t.started("still running")]);
    }
    const kept = ids.filter((id) => chats.runtime(id).history !== null);
    expect(kept).toEqual(["c0", ...ids.slice(-KEPT_HISTORIES)]); // c0 is running: it keeps its history
    chats.applyBatch([t.done()]);
    await settle();
    chats.open("c1");
    await settle();
    expect(gets.filter((id) => id === "c1")).toHaveLength(2);
    expect(chats.entries("c1").map((e) => e.kind)).toEqual(["user"]);
    expect(ids.filter((id) => chats.runtime(id).history !== null).length).toBeLessThanOrEqual(KEPT_HISTORIES + 1);
  });
});

describe("chats store: context left out", () => {
  it("marks the chat whose turn left older messages out of the model's context", () => {
    const { chats } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started()]);
    expect(chats.runtime("c1").contextLeftOut).toBeFalsy();
    chats.applyBatch([{ type: "context_left_out", chat_id: "c1" } as AppEvent]);
    expect(chats.runtime("c1").contextLeftOut).toBe(true);
    expect(chats.runtime("c2").contextLeftOut).toBeFalsy();
  });
});

describe("chats store: history reads that cross", () => {
  it("an older read answering after a newer one does not put back the history without the newer turn", async () => {
    const { chats, fake } = setup();
    const replies: ((n: number) => void)[] = [];
    fake.on("chats.get", ({ chat_id }) => {
      return new Promise((resolve) => {
        replies.push((n) =>
          resolve({
            chat: summary(chat_id),
            messages: Array.from({ length: n }, (_, i) => message(i + 1, i % 2 ? "assistant" : "user", `m${i + 1}`)),
            has_more: false,
            viewing: null,
          }),
        );
      });
    });
    const older = chats.loadHistory("c1"); // after the third turn
    const newer = chats.loadHistory("c1"); // after the fourth, queued right behind it
    replies[1](8); // the newer read answers first, with the fourth turn
    await newer;
    replies[0](6); // then the older one, without it
    await older;
    expect(chats.runtime("c1").history).toHaveLength(8);
    expect(chats.runtime("c1").loading).toBe(false);
  });
});
