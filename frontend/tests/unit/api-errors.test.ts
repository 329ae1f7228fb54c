// Every backend error and approval summary is worded in both UI languages (issue 25 item 6):
// the keys come from the generated API types, so a new backend key without a wording fails here.
import { afterEach, describe, expect, it } from "vitest";
import { API_ERROR_TEXTS, type ApprovalRequired, type ApprovalSummary } from "@/api/generated";
import { ApiError } from "@/api/transport";
import ApprovalDialog from "@/components/chat/ApprovalDialog.vue";
import { dictionaries, type MessageKey } from "@/i18n";
import { approvalSummary } from "@/i18n/builtins";
import { apiErrorKey, errorText } from "@/i18n/errors";
import { errorMessage } from "@/stores/api";
import { toErrorInfo } from "@/stores/chats";
import { useSettingsStore } from "@/stores/settings";
import { settingsView } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

const placeholders = (text: string) => new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
const CJK = /[\u3400-\u9fff]/;

describe("backend error keys", () => {
  const keys = Object.keys(API_ERROR_TEXTS) as (keyof typeof API_ERROR_TEXTS)[];

  it("come from the generated types", () => {
    expect(keys.length).toBeGreaterThan(100);
    expect(API_ERROR_TEXTS["kb.exists"]).toBe("A knowledge base named '{name}' already exists.");
  });

  it.each(keys)("%s is worded in English (the backend's text) and in Chinese", (key) => {
    const english = API_ERROR_TEXTS[key];
    expect(dictionaries.en[apiErrorKey(key)]).toBe(english);
    const chinese = dictionaries["zh-CN"][apiErrorKey(key)];
    expect(chinese).toMatch(CJK);
    // Only what the backend sends can be named; a missing one would leave the English shown.
    for (const name of placeholders(chinese)) expect(placeholders(english)).toContain(name);
  });
});

describe("a route failure", () => {
  const failure = () =>
    new ApiError("kb.create", "conflict", "A knowledge base named 'Docs' already exists.", {}, { key: "kb.exists", params: { name: "Docs" } });

  it("is worded from its key and parameters, the English text as fallback", () => {
    const err = failure();
    const worded = { code: err.code, message: err.message, params: err.params, key: err.key };
    expect(errorText("zh-CN", worded)).toBe("已经有名为“Docs”的知识库。");
    expect(errorText("en", worded)).toBe("A knowledge base named 'Docs' already exists.");
    expect(errorText("zh-CN", { ...worded, params: {} })).toBe(err.message); // a parameter missing
    expect(errorText("zh-CN", { ...worded, key: "kb.not_a_key" })).toBe(err.message); // an unknown key
  });

  it("words a refused bundle's reason from its own key (issue 41)", () => {
    const message = "the bundle is refused: the bundle is made for darwin, win32 only; this computer runs linux";
    const reason = message.slice("the bundle is refused: ".length);
    const worded = {
      code: "invalid", message, key: "bundle.refused",
      params: { reason, reason_key: "bundle.archive.platform", reason_platforms: "darwin, win32", reason_platform: "linux" },
    };
    expect(errorText("zh-CN", worded)).toBe("该包被拒绝：该包只适用于 darwin, win32；这台电脑运行的是 linux");
    expect(errorText("en", worded)).toBe(message);
    // A reason without a key stays as the backend said it (inside the Chinese frame).
    expect(errorText("zh-CN", { ...worded, params: { reason } })).toBe(`该包被拒绝：${reason}`);
  });

  it("words a bundle's broken ZIP rule in Chinese and keeps the English sentence (issue 41)", () => {
    const reason = "'server/../../escaped.js' tries to leave the bundle folder ('..').";
    const message = `the bundle is refused: ${reason}`;
    const worded = {
      code: "invalid", message, key: "bundle.refused",
      params: { reason, reason_key: "zip.traversal", reason_name: "server/../../escaped.js", reason_what: "bundle" },
    };
    expect(errorText("zh-CN", worded)).toBe("该包被拒绝：“server/../../escaped.js”试图离开包所在的文件夹（“..”）。");
    expect(errorText("en", worded)).toBe(message);
  });

  it("names a Skill's source in the UI language", () => {
    const worded = { code: "invalid", message: "user Skills are read-only.", key: "skill.source_read_only", params: { source: "user" } };
    expect(errorText("zh-CN", worded)).toBe("用户技能是只读的。");
    expect(errorText("en", worded)).toBe("user Skills are read-only.");
  });

  it("is shown in the settings' language by errorMessage and the banner's ErrorInfo", async () => {
    await mountWith(ApprovalDialog, { props: { approval: APPROVAL, more: 0 } }); // an active store
    expect(errorMessage(failure())).toBe("A knowledge base named 'Docs' already exists.");
    useSettingsStore().view = settingsView({ language: "zh-CN" });
    expect(errorMessage(failure())).toBe("已经有名为“Docs”的知识库。");
    expect(errorText("zh-CN", toErrorInfo(failure()))).toBe("已经有名为“Docs”的知识库。");
    expect(errorMessage(new Error("plain"))).toBe("plain");
  });

  it("words a validation failure: which field and why", () => {
    const worded = { code: "invalid", message: "name: at most 80 characters.", key: "request.field_too_long", params: { field: "name", limit: "80" } };
    expect(errorText("zh-CN", worded)).toBe("name：最多 80 个字符。");
  });
});

// Every summary code of the backend (a code missing here fails the type check).
const SUMMARY_CODES: Record<ApprovalSummary["code"], true> = {
  run_command: true, run_unsandboxed_network: true, run_unsandboxed_files: true, run_unsandboxed_program: true,
  write_file_new: true, write_file_overwrite: true, edit_file: true,
  protected_private: true, protected_hardlink: true, fetch_url: true, web_search: true,
  use_tool: true, mcp_tool: true, mcp_tool_read_only: true, skill_script: true,
  skill_create: true, skill_update: true, note_create: true, note_delete: true, todo_add: true,
  todo_complete: true, todo_delete: true, memory_add: true, memory_change: true,
  memory_delete: true, memory_file_add: true, memory_file_add_own: true, memory_file_forget: true,
};

const APPROVAL: ApprovalRequired = {
  type: "approval_required", chat_id: "c1", turn_id: "t1", approval_id: "a1", call_id: "k1", tool: "exec",
  title: "Run a command", detail: "ls -la\n(in /work/space)", argv: ["ls", "-la"], can_always: true,
  summary: { code: "run_command", params: { cwd: "/work/space" }, exact: "ls -la" },
};

describe("approval summaries", () => {
  it.each(Object.keys(SUMMARY_CODES))("%s is worded in both languages", (code) => {
    const key = `approval.summary.${code}` as MessageKey;
    expect(dictionaries.en[key]).toBeTruthy();
    expect(dictionaries["zh-CN"][key]).toMatch(CJK);
    expect(placeholders(dictionaries["zh-CN"][key])).toEqual(placeholders(dictionaries.en[key]));
  });

  it("are shown in the UI language, the exact command verbatim", async () => {
    const { wrapper } = await mountWith(ApprovalDialog, { props: { approval: APPROVAL, more: 0 } });
    expect(wrapper.get('[data-testid="approval-summary"]').text()).toBe("Run this command in /work/space:");
    useSettingsStore().view = settingsView({ language: "zh-CN" });
    await tick();
    expect(wrapper.get('[data-testid="approval-summary"]').text()).toBe("在 /work/space 中运行这条命令：");
    expect(wrapper.get('[data-testid="approval-detail"]').text()).toBe("ls -la");
    expect(wrapper.text()).not.toContain("(in /work/space)");
  });

  it("fill in their parameters", () => {
    const write: ApprovalSummary = { code: "write_file_new", params: { bytes: "3", path: "/w/notes.md" }, exact: "/w/notes.md" };
    expect(approvalSummary("zh-CN", write)).toBe("向新文件写入 3 字节：");
  });
});

describe("the UI's own transport errors", () => {
  it("are worded too", () => {
    const down = new ApiError("chats.list", "unavailable", "Cannot reach the CashCode server.", {}, { key: "client.unreachable" });
    expect(errorMessage(down, "zh-CN")).toBe("无法连接 CashCode 服务器。");
    expect(errorMessage(down, "en")).toBe("Cannot reach the CashCode server.");
  });
});
