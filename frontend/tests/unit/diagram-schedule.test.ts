import { afterEach, describe, expect, it, vi } from "vitest";
import MarkdownView from "@/components/chat/MarkdownView.vue";
import { STREAM_PAUSE_MS } from "@/composables/useRichBlocks";
import { mermaidRequested } from "@/model/diagrams";
import { mountWith } from "./mount";

// Its own file: Mermaid's "requested" flag is per module instance, and this file must see it
// before anything else in the page asked for Mermaid.

const DIAGRAM = "Before.\n\n```mermaid\nflowchart LR\n  A --> B\n```\n\n";

async function flush(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

describe("diagrams while a reply streams", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("are drawn only once the stream pauses, never in the frames of the tokens after them", async () => {
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

  it("a diagram still queued when the reply ends is drawn then", async () => {
    vi.useFakeTimers();
    const { wrapper } = await mountWith(MarkdownView, { props: { source: DIAGRAM + "After", streaming: true } });
    await flush(10);
    const block = () => wrapper.get(".diagram-block").element as HTMLElement;
    expect(block().dataset.state).toBe("queued");
    await wrapper.setProps({ source: DIAGRAM + "After it.", streaming: false });
    await flush(10);
    expect(block().dataset.state).not.toBe("queued");
    expect(block().dataset.state).toBeDefined();
    wrapper.unmount();
  }, 30_000);
});
