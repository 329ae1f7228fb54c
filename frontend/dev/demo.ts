/** A scripted in-memory backend for screenshots: `index.html?scenario=chat|approval|first-run|settings&theme=dark`. */
import { FakeTransport } from "@/api/fake";
import type { AppEvent, ChatSummary, MessageView, ProviderView, SettingsView } from "@/api/generated";
import { boot } from "@/boot";

const params = new URLSearchParams(location.search);
const scenario = params.get("scenario") ?? "chat";
const now = "2026-11-30T09:00:00Z";

let settings: SettingsView = {
  theme: (params.get("theme") as SettingsView["theme"]) ?? "light",
  language: (params.get("lang") as SettingsView["language"]) ?? "en",
  workspace: "/home/cash/projects/demo",
  last_model: { provider_id: "p1", model: "gpt-4.1-mini" },
  approval_mode: "ask_writes",
  tool_policies: {},
  max_iterations: 20,
  allow_private_network: false,
  exec_env: [],
  sandbox_hidden: [],
  sandbox_readable: [],
  local_api: false,
  skill_evolution: false,
  vision_models: {},
  model_prices: [],
  close_to_tray: true,
  quick_ask_hotkey: "",
};
const providers: ProviderView[] =
  scenario === "first-run"
    ? []
    : [
        { id: "p1", name: "OpenAI", kind: "chat_completions", base_url: "https://api.openai.com/v1", api_key: "********", has_key: true, timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: false },
        { id: "p2", name: "Local Ollama", kind: "ollama", base_url: "http://127.0.0.1:11434", api_key: "", has_key: false, timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: true },
      ];
const chats: ChatSummary[] = [
  { id: "c1", title: "Refactor the parser module", created_at: now, updated_at: "2026-11-30T09:05:00Z", running: false, message_count: 4, last_activity: now, preview: "", agent_id: "default" },
  { id: "c2", title: "Weekly report summary", created_at: now, updated_at: "2026-11-29T18:00:00Z", running: false, message_count: 4, last_activity: now, preview: "", agent_id: "default" },
  { id: "c3", title: "解释一下这个正则表达式", created_at: now, updated_at: "2026-11-28T10:00:00Z", running: false, message_count: 4, last_activity: now, preview: "", agent_id: "default" },
];
const msg = (cursor: number, role: MessageView["role"], content: string, extra: Partial<MessageView> = {}): MessageView => ({
  cursor, turn_id: `t${Math.ceil(cursor / 4)}`, role, content, tool_calls: [], tool_call_id: null, name: null, created_at: now, mentions: [], attachments: [], stopped: false, steer: false, tool_outcome: null, siblings: [cursor], sibling_index: 0, ...extra,
});
const history: MessageView[] = [
  msg(1, "user", "Which files define the tokenizer? Show me a quick summary table."),
  msg(2, "assistant", "", { tool_calls: [{ id: "k1", name: "grep", arguments: '{"pattern": "class Tokenizer", "path": "src"}' }] }),
  msg(3, "tool", "src/parser/tokenizer.py:12:class Tokenizer:\nsrc/parser/legacy.py:88:class Tokenizer(Base):", { tool_call_id: "k1", name: "grep" }),
  msg(4, "assistant", "Two files define a `Tokenizer`:\n\n| File | Line | Notes |\n|---|---|---|\n| `src/parser/tokenizer.py` | 12 | current implementation |\n| `src/parser/legacy.py` | 88 | subclass of `Base`, unused |\n\nA minimal use:\n\n```python\nfrom parser.tokenizer import Tokenizer\n\ntokens = Tokenizer(\"a + b\").run()\nprint(tokens)  # ['a', '+', 'b']\n```\n\nSee the [docs](https://example.com/docs) for details."),
];

const fake = new FakeTransport()
  .on("app.info", () => ({
    version: "0.1.0", platform: "linux", first_run: scenario === "first-run", data_dir: "/home/cash/.local/share/CashCode",
    workspace: settings.workspace, keyring: { available: true, backend: "SecretService", message: "Keys are stored in the system keyring." },
    notices: [], database_busy: false,
  }))
  .on("app.detect_ollama", () => ({ found: true, base_url: "http://127.0.0.1:11434", models: ["llama3.2", "qwen2.5-coder"], message: "" }))
  .on("settings.get", () => settings)
  .on("settings.update", (patch) => (settings = { ...settings, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v != null)) }))
  .on("chats.list", () => ({ chats, next_before: null }))
  .on("chats.get", ({ chat_id }) => ({ chat: chats.find((c) => c.id === chat_id) ?? chats[0], messages: chat_id === "c1" ? history : [], has_more: false, viewing: null }))
  .on("chats.create", () => {
    const chat = { id: `c${chats.length + 1}`, title: "New chat", created_at: now, updated_at: new Date().toISOString(), running: false, message_count: 0, last_activity: now, preview: "", agent_id: "default" };
    chats.push(chat);
    return chat;
  })
  .on("chats.rename", ({ chat_id, title }) => Object.assign(chats.find((c) => c.id === chat_id)!, { title }))
  .on("chats.delete", () => ({ ok: true as const }))
  .on("providers.list", () => ({ providers }))
  .on("providers.save", (input) => ({ id: input.id ?? "p9", name: input.name, kind: input.kind, base_url: input.base_url, api_key: input.api_key ? "********" : "", has_key: Boolean(input.api_key), timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: false }))
  .on("providers.test", () => ({ ok: true, message: "Connected: 42 models available.", model_count: 42, code: null, timeout_s: null, params: {} }))
  .on("providers.delete", () => ({ ok: true as const }))
  .on("models.list", () => ({
    models: [
      { provider_id: "p1", provider_name: "OpenAI", model: "gpt-4.1-mini", supports_tools: true, supports_vision: true },
      { provider_id: "p1", provider_name: "OpenAI", model: "gpt-4.1", supports_tools: true, supports_vision: true },
      { provider_id: "p2", provider_name: "Local Ollama", model: "llama3.2", supports_tools: true, supports_vision: false },
    ],
    errors: [],
  }))
  .on("approvals.list", () => ({
    grants: [{ id: "g1", kind: "exec", key: ["git", "log", "--oneline", "-n", "20"], workspace: "/home/cash/projects/demo", created_at: now, chat_id: "c1", enabled: true }],
  }))
  .on("approvals.revoke", () => ({ ok: true as const }))
  .on("tools.list", () => ({
    tools: [
      { name: "read_file", description: "Read a UTF-8 text file in the workspace.", read_only: true, policy: "always" as const, group: "builtin" },
      { name: "write_file", description: "Create or overwrite a file in the workspace.", read_only: false, policy: "ask" as const, group: "builtin" },
      { name: "exec", description: "Run a program (argv list) in the workspace.", read_only: false, policy: "ask" as const, group: "builtin" },
    ],
  }))
  .on("chat.send", ({ chat_id, text }) => {
    const turn = `live-${Date.now()}`;
    setTimeout(() => stream(chat_id, turn, text), 50);
    return { chat_id, turn_id: turn };
  })
  .on("chat.cancel", () => ({ ok: true as const }))
  .on("chat.approve", () => ({ ok: true as const }))
  .on("desktop.pick_folder", () => ({ path: "/home/cash/projects/other" }));

function stream(chatId: string, turnId: string, text: string): void {
  const base = { chat_id: chatId, turn_id: turnId };
  const batches: AppEvent[][] = [[{ type: "turn_started", ...base, provider_id: "p1", model: "gpt-4.1-mini", user_text: text }]];
  const answer = "Let me check the workspace first.";
  for (const word of answer.split(/(?= )/)) batches.push([{ type: "delta", ...base, text: word, channel: "text" }]);
  batches.push([{ type: "tool_call", ...base, call_id: "x1", name: "exec", arguments: '{"argv": ["rm", "-rf", "build/"], "timeout": 30}' }]);
  batches.push([{ type: "approval_required", ...base, approval_id: "ap1", call_id: "x1", tool: "exec", title: "Run a command in the workspace", detail: "rm -rf build/\n(cwd: /home/cash/projects/demo)", argv: ["rm", "-rf", "build/"], can_always: true, summary: { code: "run_command", params: { cwd: "/home/cash/projects/demo" }, exact: "rm -rf build/" } }]);
  let i = 0;
  const tick = () => {
    const batch = batches[i++];
    if (!batch) return;
    fake.emit(batch);
    setTimeout(tick, 30);
  };
  tick();
}

if (scenario === "chat" || scenario === "approval") location.hash = "#/chat/c1";
if (scenario === "settings") location.hash = "#/settings";
boot(fake);
if (scenario === "approval") {
  setTimeout(() => void fake.invoke("chat.send", { chat_id: "c1", text: "Clean the build folder please." }), 300);
}
