// Provider failures in Chinese name the setting and carry the server's own words (issue 34).
import { describe, expect, it } from "vitest";
import { errorText } from "@/i18n/errors";

describe("provider errors in Chinese", () => {
  it("appends what the server said", () => {
    const error = {
      code: "server",
      message: "Provider Llama had a server error (HTTP 500) — the server said: slot busy. Try again in a moment.",
      params: { provider: "Llama", status: "500", server_message: "slot busy" },
    };
    expect(errorText("zh-CN", error)).toBe("服务商 Llama 出现服务器错误。请稍后再试。（服务器返回：slot busy）");
    expect(errorText("en", error)).toBe(error.message);
  });

  it("says when a server has no Responses API, naming the URL", () => {
    const error = {
      code: "no_responses_api",
      message: "Provider Llama has no Responses API",
      params: { provider: "Llama", url: "http://127.0.0.1:8000/v1/responses", server_message: "Not Found" },
    };
    const text = errorText("zh-CN", error);
    expect(text).toContain("没有 Responses API");
    expect(text).toContain("http://127.0.0.1:8000/v1/responses");
  });

  it("a timeout names the settings", () => {
    const text = errorText("zh-CN", { code: "timeout", message: "x", params: { provider: "Llama", host: "h" } });
    expect(text).toContain("“超时”");
  });
});
