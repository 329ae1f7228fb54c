import { afterEach, describe, expect, it } from "vitest";
import ChatComposer from "@/components/chat/ChatComposer.vue";
import { mountWith } from "./mount";

const GROUPS = [
  {
    providerId: "p1",
    providerName: "OpenAI",
    models: [
      { provider_id: "p1", provider_name: "OpenAI", model: "gpt-a", supports_tools: true, supports_vision: null },
      { provider_id: "p1", provider_name: "OpenAI", model: "gpt-b", supports_tools: true, supports_vision: null },
    ],
  },
  {
    providerId: "p2",
    providerName: "Ollama",
    models: [{ provider_id: "p2", provider_name: "Ollama", model: "llama", supports_tools: null, supports_vision: null }],
  },
];

async function composer(props: Record<string, unknown> = {}) {
  const { wrapper } = await mountWith(ChatComposer, { props: { running: false, groups: GROUPS, model: null, chatId: "c1", ...props } });
  return wrapper;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("composer", () => {
  it("Enter sends and clears; Shift+Enter does not send", async () => {
    const w = await composer();
    const input = w.get('[data-testid="composer-input"]');
    await input.setValue("hello");
    await input.trigger("keydown", { key: "Enter", shiftKey: true });
    expect(w.emitted("send")).toBeUndefined();
    await input.trigger("keydown", { key: "Enter" });
    expect(w.emitted("send")).toEqual([["hello", [], []]]);
    expect((input.element as HTMLTextAreaElement).value).toBe("");
  });

  it("Ctrl/Cmd+Enter sends", async () => {
    const w = await composer();
    const input = w.get('[data-testid="composer-input"]');
    await input.setValue("one");
    await input.trigger("keydown", { key: "Enter", ctrlKey: true });
    await input.setValue("two");
    await input.trigger("keydown", { key: "Enter", metaKey: true });
    expect(w.emitted("send")).toEqual([["one", [], []], ["two", [], []]]);
  });

  it("ignores Enter while an IME is composing", async () => {
    const w = await composer();
    const input = w.get('[data-testid="composer-input"]');
    await input.setValue("ni hao");
    await input.trigger("keydown", { key: "Enter", isComposing: true });
    expect(w.emitted("send")).toBeUndefined();
  });

  it("while the chat runs: Enter queues, Ctrl+Enter and the Steer button steer, Stop stops (issue 35)", async () => {
    const w = await composer({ running: true });
    const input = w.get('[data-testid="composer-input"]');
    expect(w.find('[data-testid="send-button"]').exists()).toBe(false);
    expect(w.get('[data-testid="steer-button"]').attributes("disabled")).toBeDefined();
    await input.setValue("then list the files");
    await input.trigger("keydown", { key: "Enter" });
    expect(w.emitted("send")).toBeUndefined();
    expect(w.emitted("queue")?.[0]?.[0]).toBe("then list the files");
    await input.setValue("use metric units");
    await input.trigger("keydown", { key: "Enter", ctrlKey: true });
    expect(w.emitted("steer")?.[0]).toEqual(["use metric units"]);
    await input.setValue("shorter");
    await w.get('[data-testid="steer-button"]').trigger("click");
    expect(w.emitted("steer")?.[1]).toEqual(["shorter"]);
    expect((input.element as HTMLTextAreaElement).value).toBe("");
    await w.get('[data-testid="stop-button"]').trigger("click");
    expect(w.emitted("stop")).toHaveLength(1);
  });

  it("has no Stop button and a disabled Send for empty text when idle", async () => {
    const w = await composer();
    expect(w.find('[data-testid="stop-button"]').exists()).toBe(false);
    expect(w.get('[data-testid="send-button"]').attributes("disabled")).toBeDefined();
  });

  it("the model picker groups models by provider and emits the choice", async () => {
    const w = await composer({ model: { provider_id: "p1", model: "gpt-b" } });
    const select = w.get('[data-testid="model-picker"]');
    expect(w.findAll("optgroup").map((g) => g.attributes("label"))).toEqual(["OpenAI", "Ollama"]);
    expect((select.element as HTMLSelectElement).selectedOptions[0].textContent).toBe("OpenAI · gpt-b");
    await select.setValue(JSON.stringify(["p2", "llama"]));
    expect(w.emitted("update:model")).toEqual([[{ provider_id: "p2", model: "llama" }]]);
  });
});

describe("composer attachments", () => {
  it("refuses files over the limits with a message and sends references of uploaded ones", async () => {
    const { mountWith, tick } = await import("./mount");
    const ChatComposer = (await import("@/components/chat/ChatComposer.vue")).default;
    const { wrapper, fake } = await mountWith(ChatComposer, { props: { running: false, groups: [], model: null, chatId: "c1" } });
    const ref = { sha256: "a".repeat(64), name: "dot.png", mime: "image/png", size: 4, kind: "image" as const };
    fake.on("attachments.upload", ({ name }) => ({ ...ref, name }));
    const drop = (files: File[]) => {
      const ev = new Event("drop", { bubbles: true, cancelable: true }) as Event & { dataTransfer: unknown };
      ev.dataTransfer = { files, types: ["Files"] };
      wrapper.get('[data-testid="composer"]').element.dispatchEvent(ev);
    };
    drop([new File([new Uint8Array(21 * 1024 * 1024)], "huge.png", { type: "image/png" })]);
    await tick();
    expect(wrapper.get('[data-testid="attachment-notice"]').text()).toBe("huge.png is larger than 20 MB and cannot be attached.");
    drop(Array.from({ length: 11 }, (_, i) => new File(["x"], `n${i}.txt`, { type: "text/plain" })));
    await tick();
    for (let i = 0; i < 20 && wrapper.findAll('[data-status="uploading"]').length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(wrapper.findAll('[data-testid="attachment-chip"]')).toHaveLength(10);
    expect(wrapper.get('[data-testid="attachment-notice"]').text()).toBe("At most 10 files can be attached to one message.");
    await wrapper.get('[data-testid="composer-input"]').setValue("files");
    await wrapper.get("form").trigger("submit");
    const [[text, , refs]] = wrapper.emitted("send") as [string, unknown[], unknown[]][];
    expect(text).toBe("files");
    expect(refs).toHaveLength(10);
    expect(wrapper.findAll('[data-testid="attachment-chip"]')).toHaveLength(0);
  });
});
