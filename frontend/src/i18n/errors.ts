/**
 * Backend errors in the UI language. A route failure carries the `key` of its catalog entry
 * (app/contracts/error_texts.py) and the `params` it names; it is worded from `apiError.<key>` in
 * the UI's dictionaries. Provider failures carry a stable `code` (or `params.provider_code`) and
 * are worded from ZH below. A key or code not known here, or a wording whose parameters did not
 * all arrive, falls back to the backend's English message, so nothing is blank or half-filled.
 */
import { dictionaries, type MessageKey } from "@/i18n";
import type { Language } from "@/stores/settings";

interface Worded {
  code: string;
  message: string;
  params?: Record<string, string>;
  key?: string;
}

// Provider failures (app/llm/errors.py), by ProviderError code.
const ZH: Record<string, string> = {
  no_api_key: "服务商 {provider} 没有 API 密钥。请在“设置 → 服务商”中添加，或设置 OPENAI_API_KEY。",
  auth: "服务商 {provider} 拒绝了 API 密钥（HTTP {status}）。请在“设置 → 服务商”中检查密钥。",
  not_found: "服务商 {provider} 对 {url} 返回 404 Not Found。请检查基础地址。",
  no_responses_api: "服务商 {provider} 没有 Responses API（{url} 返回 404）。请在“设置 → 服务商”中把类型改为 Chat Completions。",
  model_not_found: "服务商 {provider} 没有模型“{model}”。打开模型选择器查看它提供的模型，或手动输入模型 ID。",
  rate_limit: "服务商 {provider} 正在限制请求频率。请稍等一分钟再试。",
  server: "服务商 {provider} 出现服务器错误。请稍后再试。",
  unreachable: "无法连接 {host}（服务商 {provider}）。请检查基础地址和网络连接。",
  ollama_not_running: "{host} 上没有运行 Ollama。请用 `ollama serve` 启动 Ollama（或打开 Ollama 应用）后重试。",
  context_length: "对话对模型“{model}”来说太长了。请新建对话，或移除较大的附件或工具输出。",
  disconnected: "与服务商 {provider} 的连接在回答完成前断开。请重试。",
  timeout: "服务商 {provider}（{host}）没有及时响应。请重试，或在“设置 → 服务商”中调大该服务商的“超时”或“首字超时”。",
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

/** The dictionary key wording a route failure's catalog entry (`database_busy` also by code). */
export function apiErrorKey(key: string): MessageKey {
  return `apiError.${key}` as MessageKey;
}

// Parameters whose value is itself a word of the UI (a Skill's source: "user", "builtin"…; what
// a ZIP rule names the package by: "Skill", "bundle", "package").
const WORDED_PARAMS: Record<string, string> = { source: "skills.source.", part: "tasks.cronPart.", what: "zip.what." };

function words(lang: Language, params: Record<string, string>): Record<string, string> {
  const out = { ...params };
  for (const [name, prefix] of Object.entries(WORDED_PARAMS)) {
    const word = name in out ? (dictionaries[lang][`${prefix}${out[name]}` as MessageKey] as string | undefined) : undefined;
    if (word) out[name] = word;
  }
  return out;
}

function wordedParams(lang: Language, params: Record<string, string>): Record<string, string> {
  if (lang === "en") return { ...params }; // the English wording is the backend's, values included
  const out = words(lang, params);
  // A parameter that is itself a keyed text (app/contracts/errors.py `nest`): `<name>_key` and
  // `<name>_<param>` word it in this language ("the bundle is refused: <why>").
  for (const [field, key] of Object.entries(params)) {
    if (!field.endsWith("_key")) continue;
    const name = field.slice(0, -"_key".length);
    const template = dictionaries[lang][apiErrorKey(key)] as string | undefined;
    if (!template || !(name in params)) continue;
    const inner: Record<string, string> = {};
    for (const [p, v] of Object.entries(params)) {
      if (p.startsWith(`${name}_`) && p !== field) inner[p.slice(name.length + 1)] = v;
    }
    const worded = fill(template, words(lang, inner));
    if (worded) out[name] = worded;
  }
  return out;
}

function catalogText(lang: Language, error: Worded): string | null {
  const key = error.key || (error.code === "database_busy" ? "database_busy" : "");
  if (!key) return null;
  const template = dictionaries[lang][apiErrorKey(key)] as string | undefined;
  return template ? fill(template, wordedParams(lang, error.params ?? {})) : null;
}

/** The error's text in `lang`: the provider code may come as `code` or as `params.provider_code`. */
export function errorText(lang: Language, error: Worded): string {
  const worded = catalogText(lang, error);
  if (worded) return worded;
  if (lang !== "zh-CN") return error.message;
  const params = error.params ?? {};
  const code = params.provider_code ?? error.code;
  const template = ZH[code];
  const zh = template && fill(template, params);
  if (!zh) return error.message;
  // The server's own words (app/llm/errors.py puts them into the English message too).
  return params.server_message ? `${zh}（服务器返回：${params.server_message.slice(0, 300)}）` : zh;
}
