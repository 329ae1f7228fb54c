import { afterEach, describe, expect, it, vi } from "vitest";
import MarkdownView from "@/components/chat/MarkdownView.vue";
import { STREAM_PAUSE_MS, createDrawQueue } from "@/composables/useRichBlocks";
import { mermaidRequested } from "@/model/diagrams";
import { mountWith } from "./mount";

// Its own file: Mermaid's "requested" flag is per module instance, and this file must see it
// before anything else in the page asked for Mermaid.

const DIAGRAM = "Before.\n\n```mermaid\nflowchart LR\n  A --> B\n```\n\n";

async function flush(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

describe("diagrams and streaming replies", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a finished diagram is drawn only once the stream pauses, never in the frames of the tokens after it", async () => {
    vi.useFakeTimers();
    const { wrapper } = await mountWith(MarkdownView, { props: { source: DIAGRAM + "After", streaming: true } });
    await flush();
    const block = () => wrapper.get(".diagram-block").element as HTMLElement;
    // The block is complete (a paragraph follows it) but tokens keep coming: it waits, as source.
    expect(block().dataset.state).toBe("queued");
    for (let i = 0; i < 5; i++) {
      await wrapper.setProps({ source: `${DIAGRAM}After ${"word ".repeat(i + 1)}`, streaming: true });
      await flush(STREAM_PAUSE_MS / 2);
    }
    expect(block().dataset.state).toBe("queued");
    expect(mermaidRequested()).toBe(false);
    expect(wrapper.find(".diagram-source").text()).toContain("A --> B");
    // The stream goes quiet: the diagram is drawn (Mermaid loads on demand).
    await flush(STREAM_PAUSE_MS + 10);
    expect(block().dataset.state).not.toBe("queued");
    expect(mermaidRequested()).toBe(true);
    wrapper.unmount();
  }, 30_000);

});

describe("the page's draw queue", () => {
  function setup() {
    let clock = 0;
    const queue = createDrawQueue(() => clock);
    const drawn: string[] = [];
    const block = (name: string) => {
      const el = document.createElement("div");
      el.className = "diagram-block";
      document.body.append(el);
      queue.add(el, async () => {
        el.dataset.state = "rendered";
        drawn.push(name);
      });
      return el;
    };
    const pass = async (ms: number) => {
      clock += ms;
      await vi.advanceTimersByTimeAsync(ms);
    };
    return { queue, drawn, block, pass };
  }

  afterEach(() => {
    vi.useRealTimers();
    document.body.innerHTML = "";
  });

  it("draws at once, one diagram per idle callback, when nothing streams", async () => {
    vi.useFakeTimers();
    const { drawn, block, pass } = setup();
    const a = block("a");
    block("b");
    expect(a.dataset.state).toBe("queued");
    await pass(1);
    expect(drawn).toEqual(["a", "b"]);
  });

  it("holds while any reply in the page streams, and draws after a quiet STREAM_PAUSE_MS", async () => {
    vi.useFakeTimers();
    const { queue, drawn, block, pass } = setup();
    queue.activity();
    block("finished answer");
    for (let i = 0; i < 6; i++) {
      await pass(STREAM_PAUSE_MS / 2);
      queue.activity(); // the next reply's tokens
    }
    expect(drawn).toEqual([]);
    await pass(STREAM_PAUSE_MS - 1);
    expect(drawn).toEqual([]);
    await pass(2);
    expect(drawn).toEqual(["finished answer"]);
  });

  it("drops the diagrams of a view that left the page", async () => {
    vi.useFakeTimers();
    const { queue, drawn, block, pass } = setup();
    queue.activity();
    block("gone").remove();
    block("kept");
    queue.prune();
    expect(queue.size).toBe(1);
    await pass(STREAM_PAUSE_MS + 1);
    expect(drawn).toEqual(["kept"]);
  });

  it("a draw that never settles does not hold the others for ever", async () => {
    vi.useFakeTimers();
    let clock = 0;
    const queue = createDrawQueue(() => clock);
    const stuck = document.createElement("div");
    const next = document.createElement("div");
    document.body.append(stuck, next);
    queue.add(stuck, () => new Promise<void>(() => undefined));
    let drawn = false;
    queue.add(next, async () => {
      drawn = true;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(drawn).toBe(false);
    clock += 10_000;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(drawn).toBe(true);
  });
});
