import { afterEach, describe, expect, it } from "vitest";
import type { ProviderView, SettingsPatch, SettingsView } from "@/api/generated";
import { ApiError } from "@/api/transport";
import PricesSection from "@/components/settings/PricesSection.vue";
import { useProvidersStore } from "@/stores/providers";
import { useSettingsStore } from "@/stores/settings";
import { settingsView } from "./helpers";
import { mountWith, tick } from "./mount";

const PROVIDER: ProviderView = { id: "p1", name: "Work", kind: "chat_completions", base_url: "https://x/v1", api_key: "", has_key: false, timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: false };
const SETTINGS: SettingsView = settingsView();

afterEach(() => {
  document.body.innerHTML = "";
});

describe("prices section", () => {
  it("adds a price for every model of a provider and saves it", async () => {
    const { wrapper, fake } = await mountWith(PricesSection);
    fake.on("settings.update", (patch) => ({ ...SETTINGS, model_prices: (patch as SettingsPatch).model_prices ?? [] }));
    useProvidersStore().providers = [PROVIDER];
    useSettingsStore().view = SETTINGS;
    await tick();
    await wrapper.get('[data-testid="price-add"]').trigger("click");
    const inputs = wrapper.findAll('[data-testid="price-row"] input[type="number"]');
    await inputs[0].setValue("1.25");
    await inputs[1].setValue("10");
    await wrapper.get('[data-testid="price-save"]').trigger("click");
    await tick();
    expect(fake.callsTo("settings.update")).toEqual([
      { model_prices: [{ provider_id: "p1", model: "*", input_per_million: 1.25, output_per_million: 10 }] },
    ]);
    expect(wrapper.text()).toContain("Saved");
  });

  it("shows the backend's refusal", async () => {
    const { wrapper, fake } = await mountWith(PricesSection);
    fake.on("settings.update", () => {
      throw new ApiError("settings.update", "invalid", "each provider and model may have one price only");
    });
    useProvidersStore().providers = [PROVIDER];
    useSettingsStore().view = SETTINGS;
    await tick();
    await wrapper.get('[data-testid="price-save"]').trigger("click");
    await tick();
    expect(wrapper.get('[role="alert"]').text()).toContain("one price only");
  });
});
