// The Chinese UI is Chinese (issue 25 item 6): backend errors worded from their code and
// parameters, built-in descriptions and approval titles, with the English text as fallback.
import { afterEach, describe, expect, it } from "vitest";
import ErrorBanner from "@/components/common/ErrorBanner.vue";
import { approvalTitle, skillDescription, toolDescription } from "@/i18n/builtins";
import { errorText } from "@/i18n/errors";
import { useSettingsStore } from "@/stores/settings";
import { settingsView } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

const AUTH = {
  code: "auth",
  message: "Provider Work rejected the API key (HTTP 401). Check the key in Settings → Providers.",
  retry_after_s: null,
  params: { provider: "Work", status: "401", host: "https://api.example.com" },
};

describe("backend errors", () => {
  it("are worded in Chinese from their code and parameters", () => {
    expect(errorText("zh-CN", AUTH)).toBe("服务商 Work 拒绝了 API 密钥（HTTP 401）。请在“设置 → 服务商”中检查密钥。");
    // A route failure carries the provider code in its details.
    const routed = { code: "provider_error", message: "x", params: { provider_code: "unreachable", provider: "Work", host: "http://h:1" } };
    expect(errorText("zh-CN", routed)).toBe("无法连接 http://h:1（服务商 Work）。请检查基础地址和网络连接。");
  });

  it("fall back to the English text for an unknown code or missing parameters, and in English", () => {
    expect(errorText("zh-CN", { code: "busy", message: "This chat is still running a turn." })).toBe("This chat is still running a turn.");
    expect(errorText("zh-CN", { ...AUTH, params: { provider: "Work" } })).toBe(AUTH.message);
    expect(errorText("en", AUTH)).toBe(AUTH.message);
  });

  it("show in the banner in the UI language", async () => {
    const { wrapper } = await mountWith(ErrorBanner, { props: { error: AUTH } });
    expect(wrapper.get('[data-testid="error-text"]').text()).toBe(AUTH.message);
    useSettingsStore().view = settingsView({ language: "zh-CN" });
    await tick();
    expect(wrapper.get('[data-testid="error-text"]').text()).toContain("拒绝了 API 密钥");
  });
});

describe("built-in descriptions", () => {
  it("are Chinese for built-ins and the backend's text for anything else", () => {
    expect(toolDescription("zh-CN", "read_file", "Read a UTF-8 text file…")).toContain("读取工作区内");
    expect(toolDescription("zh-CN", "github__search", "Search GitHub.")).toBe("Search GitHub.");
    expect(toolDescription("en", "read_file", "Read a UTF-8 text file…")).toBe("Read a UTF-8 text file…");
    expect(approvalTitle("zh-CN", "write_file", "Write a file")).toBe("写入文件");
    expect(skillDescription("zh-CN", "cashcode-skill-creator", "Guide…")).toContain("技能");
  });
});
