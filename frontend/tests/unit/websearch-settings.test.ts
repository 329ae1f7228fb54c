import { afterEach, describe, expect, it } from "vitest";
import WebSearchSection from "@/components/settings/WebSearchSection.vue";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

const VIEW = { backend: "duckduckgo" as const, base_url: "", default_url: "https://html.duckduckgo.com/html/", api_key: "", has_key: false };

describe("web search settings", () => {
  it("saves a keyed backend with its key and shows only the mask afterwards", async () => {
    const { FakeTransport } = await import("@/api/fake");
    const fake = new FakeTransport();
    fake.on("websearch.get", () => VIEW);
    fake.on("websearch.save", (req) => ({ ...VIEW, backend: req.backend, base_url: req.base_url ?? "", api_key: "********", has_key: true }));
    const { wrapper } = await mountWith(WebSearchSection, { fake });
    await tick();
    expect(wrapper.find('[data-testid="websearch-key"]').exists()).toBe(false);
    await wrapper.get('[data-testid="websearch-backend"]').setValue("brave");
    await wrapper.get('[data-testid="websearch-key"]').setValue("secret-key-1");
    await wrapper.get("form").trigger("submit");
    await tick();
    expect(fake.callsTo("websearch.save")).toEqual([{ backend: "brave", base_url: "", api_key: "secret-key-1" }]);
    expect((wrapper.get('[data-testid="websearch-key"]').element as HTMLInputElement).value).toBe("********");
    expect(wrapper.text()).toContain("Web search settings saved.");
  });
});
