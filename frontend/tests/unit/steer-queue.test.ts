import { describe, expect, it } from "vitest";
import type { AppEvent } from "@/api/generated";
import { ApiError } from "@/api/transport";
import { buildTranscript } from "@/model/transcript";
import { message, setup, turn } from "./helpers";

const MODEL = { provider_id: "p1", model: "m1" };
const steered = (chat_id: string, turn_id: string, text: string): AppEvent => ({ type: "turn_steered", chat_id, turn_id, text });

describe("steer and queue (issue 35)", () => {
  it("a queued message waits for the turn's end, then is sent; several go in order", async () => {
    const { chats, fake } = setup();
    fake.on("chat.send", ({ chat_id }) => ({ chat_id, turn_id: "t2" }));
    const t1 = turn("c1", "t1");
    chats.applyBatch([t1.started()]);
    chats.queue("c1", "first", MODEL);
    chats.queue("c1", "second", MODEL);
    expect(chats.runtime("c1").waiting?.map((w) => w.text)).toEqual(["first", "second"]);
    expect(fake.callsTo("chat.send")).toEqual([]);
    chats.applyBatch([t1.done("ok")]);
    expect(fake.callsTo("chat.send")).toEqual([{ chat_id: "c1", text: "first", model: MODEL }]);
    const t2 = turn("c1", "t2");
    chats.applyBatch([t2.started("first"), t2.done("ok")]);
    expect(fake.callsTo("chat.send").map((c) => (c as { text: string }).text)).toEqual(["first", "second"]);
    expect(chats.runtime("c1").waiting).toEqual([]);
  });

  it("Stop gives the queued messages back to the composer, after the turn's own unanswered message", () => {
    const { chats } = setup();
    const t1 = turn("c1", "t1");
    chats.runtime("c1").fromComposer = true;
    chats.applyBatch([t1.started("question")]);
    chats.queue("c1", "one", MODEL);
    chats.queue("c1", "two", MODEL);
    chats.applyBatch([t1.cancelled()]);
    expect(chats.takeReturned("c1")?.text).toBe("question\n\none\n\ntwo");
    expect(chats.runtime("c1").waiting).toEqual([]);
  });

  it("a steer is sent at once, shown until given, then sits in the turn where the model got it", async () => {
    const { chats, fake } = setup();
    fake.on("chat.steer", ({ chat_id }) => ({ chat_id, turn_id: "t1" }));
    const t1 = turn("c1", "t1");
    chats.applyBatch([t1.started(), t1.tool("k1"), t1.result("k1")]);
    await chats.steer("c1", "use metric units", MODEL);
    expect(fake.callsTo("chat.steer")).toEqual([{ chat_id: "c1", text: "use metric units" }]);
    expect(chats.runtime("c1").waiting?.map((w) => [w.kind, w.text])).toEqual([["steer", "use metric units"]]);
    chats.applyBatch([steered("c1", "t1", "use metric units"), t1.delta("In metres.")]);
    chats.flushNow();
    expect(chats.runtime("c1").waiting).toEqual([]);
    const entry = chats.entries("c1").at(-1);
    expect(entry?.kind === "assistant" && entry.parts.map((p) => p.kind)).toEqual(["tool", "steer", "text"]);
  });

  it("a steer refused because the turn ended becomes the next message", async () => {
    const { chats, fake } = setup();
    fake.on("chat.steer", () => {
      throw new ApiError("chat.steer", "not_found", "chat c1 has no running turn to steer");
    });
    fake.on("chat.send", ({ chat_id }) => ({ chat_id, turn_id: "t2" }));
    await chats.steer("c1", "too late", MODEL);
    expect(fake.callsTo("chat.send").map((c) => (c as { text: string }).text)).toEqual(["too late"]);
  });

  it("stored history keeps a steer inside its turn", () => {
    const entries = buildTranscript([
      message(1, "user", "measure"),
      message(2, "assistant", "", { tool_calls: [{ id: "k1", name: "exec", arguments: "{}" }] }),
      message(3, "tool", "done", { tool_call_id: "k1" }),
      message(4, "user", "use metric units", { steer: true }),
      message(5, "assistant", "In metres."),
    ]);
    expect(entries.map((e) => e.kind)).toEqual(["user", "assistant"]);
    const answer = entries[1];
    expect(answer.kind === "assistant" && answer.parts.map((p) => [p.kind, p.kind === "tool" ? p.tool.name : p.text])).toEqual([
      ["tool", "exec"],
      ["steer", "use metric units"],
      ["text", "In metres."],
    ]);
  });
});
