import { afterEach, describe, expect, it } from "vitest";
import ModelPicker from "@/components/chat/ModelPicker.vue";
import { shortModelName } from "@/model/modelName";
import { mountWith } from "./mount";

const GGUF = "/home/me/models/bartowski/Qwen2.5-Coder-7B-Instruct-GGUF/qwen2.5-coder-7b-instruct-q4_k_m.gguf";

afterEach(() => {
  document.body.innerHTML = "";
});

describe("a long model id (issue 41)", () => {
  it("is shown by its last part; short ids and ids that are not paths stay whole", () => {
    expect(shortModelName(GGUF)).toBe("qwen2.5-coder-7b-instruct-q4_k_m.gguf");
    expect(shortModelName("C:\\models\\very-long-folder-name\\llama-3.1-8b-instruct.Q5_K_M.gguf")).toBe("llama-3.1-8b-instruct.Q5_K_M.gguf");
    expect(shortModelName("gpt-4o-mini")).toBe("gpt-4o-mini");
    expect(shortModelName("meta-llama/Llama-3.1-8B")).toBe("meta-llama/Llama-3.1-8B"); // short: an org/name id
    expect(shortModelName("x".repeat(60))).toBe("x".repeat(60));
  });

  it("reads short in the model picker, with the whole id in the tooltips", async () => {
    const model = { provider_id: "p1", model: GGUF };
    const groups = [{ providerId: "p1", providerName: "llama.cpp", models: [model] }];
    const { wrapper } = await mountWith(ModelPicker, { props: { groups, modelValue: model } });
    const option = wrapper.get('[data-testid="model-picker"] optgroup option');
    expect(option.text()).toBe("llama.cpp · qwen2.5-coder-7b-instruct-q4_k_m.gguf");
    expect(option.attributes("title")).toBe(GGUF);
    expect(wrapper.get('[data-testid="model-picker"]').attributes("title")).toContain(GGUF);
  });
});
