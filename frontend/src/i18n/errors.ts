/**
 * Backend errors in the UI language. Errors carry a stable `code` and the `params` their message
 * names (provider, host, model, status…); Chinese wording is built here from them. A code not
 * listed, or a wording whose parameters did not all arrive, falls back to the backend's English
 * message, so nothing is ever blank or half-filled.
 */
import type { Language } from "@/stores/settings";

interface Worded {
  code: string;
  message: string;
  params?: Record<string, string>;
}

// Provider failures (app/llm/errors.py), by ProviderError code.
const ZH: Record<string, string> = {
  no_api_key: "服务商 {provider} 没有 API 密钥。请在“设置 → 服务商”中添加，或设置 OPENAI_API_KEY。",
  auth: "服务商 {provider} 拒绝了 API 密钥（HTTP {status}）。请在“设置 → 服务商”中检查密钥。",
  not_found: "服务商 {provider} 在 {host} 返回 404 Not Found。请检查基础地址（OpenAI 兼容服务通常以 /v1 结尾）。",
  model_not_found: "服务商 {provider} 没有模型“{model}”。打开模型选择器查看它提供的模型，或手动输入模型 ID。",
  rate_limit: "服务商 {provider} 正在限制请求频率。请稍等一分钟再试。",
  server: "服务商 {provider} 出现服务器错误。请稍后再试。",
  unreachable: "无法连接 {host}（服务商 {provider}）。请检查基础地址和网络连接。",
  ollama_not_running: "{host} 上没有运行 Ollama。请用 `ollama serve` 启动 Ollama（或打开 Ollama 应用）后重试。",
  context_length: "对话对模型“{model}”来说太长了。请新建对话，或移除较大的附件或工具输出。",
  disconnected: "与服务商 {provider} 的连接在回答完成前断开。请重试。",
  timeout: "服务商 {provider}（{host}）没有及时响应。请重试，或调大该服务商的超时时间。",
  bad_response: "服务商 {provider}（{host}）返回的不是模型回复。请检查基础地址：可能是代理、登录页或不兼容 OpenAI 的服务器在响应。",
};

function fill(template: string, params: Record<string, string>): string | null {
  let missing = false;
  const text = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in params)) missing = true;
    return params[name] ?? "";
  });
  return missing ? null : text;
}

/** The error's text in `lang`: the provider code may come as `code` or as `params.provider_code`. */
export function errorText(lang: Language, error: Worded): string {
  if (lang !== "zh-CN") return error.message;
  const params = error.params ?? {};
  const code = params.provider_code ?? error.code;
  const template = ZH[code];
  return (template && fill(template, params)) || error.message;
}
