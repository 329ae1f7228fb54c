/**
 * Chinese for text the backend sends in English about its own built-in parts: tool descriptions
 * and approval titles (by tool name), built-in MCP server descriptions (by server name) and
 * built-in Skill titles and descriptions (by Skill name). Anything not listed here (an MCP
 * server's tools, a user's Skill) is shown as the backend sent it: the English text is the
 * fallback, never a blank.
 */
import type { ApprovalSummary } from "@/api/generated";
import { translate, type MessageKey } from "@/i18n";
import type { Language } from "@/stores/settings";

type Table = Record<string, string>;

const TOOL_DESCRIPTIONS_ZH: Table = {
  read_file: "读取工作区内的 UTF-8 文本文件。输出上限 256 KiB；被截断时会标明从哪个 offset 继续读取。二进制文件会被拒绝。",
  write_file: "在工作区内创建 UTF-8 文本文件（父文件夹必须已存在）。替换已有文件需要 overwrite: true。",
  edit_file: "把工作区内 UTF-8 文件中唯一一处 old_string 替换为 new_string。若出现零次或多次则失败（请附带更多上下文）。",
  list_dir: "按名称列出工作区内的文件夹。标记：'name/' 为文件夹，'name@' 为符号链接，其余为文件及其字节大小。",
  glob: "在工作区内查找路径匹配 glob 模式（如 'src/**/*.py'）的文件和文件夹。最多 100 条结果；不进入符号链接文件夹。",
  grep: "用 Python 正则表达式搜索工作区内的文件内容。最多返回 50 条 'path:line: text' 匹配；跳过二进制和超大文件。",
  exec: "在工作区内运行程序。argv 是列表：程序名及其参数（不经过 shell：没有管道、通配符、重定向或变量）。stdin 关闭，stdout 和 stderr 各限 64 KiB。超时 1–300 秒（默认 30）。",
  web_fetch: "获取公开 http(s) 网址并返回可读文本（HTML 转为文本；JSON 和纯文本原样返回）。下载上限 2 MiB，文本上限 50,000 字符。拒绝私有和本地网络地址。",
  web_search: "搜索网络并返回最多 10 条结果（标题、网址、摘要）。用 web_fetch 阅读结果页面。",
  knowledge_search: "搜索用户的知识库（其本地的笔记、文档和代码文件夹），返回最相关的段落，每段附引用 `path:start-end`。回答时请以 `path:start-end` 注明所用来源。",
  mcp_result_page: "读取一个较长 MCP 工具结果的下一页（用结果中给出的 id 和 offset）。",
  tool_search: "搜索已配置 MCP 服务器的工具（激活前处于隐藏状态）。返回匹配的工具和服务器；用 mcp_prepare(server) 激活后按返回的名称调用。",
  mcp_prepare: "连接一个 MCP 服务器（用 tool_search 给出的目录名称），并在本对话中激活它的工具，从下一步起即可直接调用。",
  skill_search: "按关键词搜索已安装的技能（针对特定任务的打包说明）。返回最匹配的技能及其描述；使用前先用 skill_load 加载。",
  skill_load: "把技能的完整说明加载到本回合并列出其文件。请按说明操作；用 skill_read_resource 读取文件，用 run_skill_script 运行脚本。",
  skill_read_resource: "在 skill_load 之后读取技能包中的文件（路径相对于技能文件夹，如 'reference/forms.md'）。返回文本（有上限）；二进制文件只返回元数据。",
  run_skill_script: "运行已加载技能中的脚本：path 相对于技能文件夹，args 为参数列表（不经过 shell）。在工作区中运行；SKILL_DIR 指向技能文件夹。每个输出流上限 64 KiB；超时 1–300 秒（默认 60）。",
  agent_skill_manage: "创建或更新你自己的技能（agent 来源）。action='create' 需要 content（完整的 SKILL.md）和可选的 files；action='update' 需要 name 以及 content 和/或 files。草稿会被校验，无效时说明原因并拒绝。",
  remember_memory: "保存一条新的长期记忆（事实、偏好或决定），可带标签。仅在用户明确要求记住、回忆、修改或忘记时使用。",
  search_memories: "搜索长期记忆。每个关键词都须出现在文本或标签中，给出的每个标签都须存在；至少给出一个关键词或标签。仅在用户明确要求记住、回忆、修改或忘记时使用。",
  update_memory: "完整替换一条记忆的文本和标签（需要完整 id）。仅在用户明确要求记住、回忆、修改或忘记时使用。",
  forget_memory: "忘记：一条明确的记忆（`id`，完整的记忆 id）或 MEMORY.md 中的一行（`line`，其文本或一部分）。被忘记的 MEMORY.md 行不会再被 Dream 或 save_memory 写回。仅在用户明确要求记住、回忆、修改或忘记时使用。",
  memory_source: "MEMORY.md 中各行的来源：包含该文本的每一行来自哪个对话、哪条（或哪些）消息以及日期（没有来源：手写的行）。",
  save_memory: "立即向 MEMORY.md（每次对话都会显示的长期记忆）追加一条重要而持久的事实。",
  create_note: "创建一条笔记（标题和 Markdown 内容）。",
  list_notes: "列出笔记（id、标题、时间）。",
  get_note: "按完整 id 读取一条笔记。",
  delete_note: "按完整 id 删除一条笔记。",
  create_todo: "添加一个待办事项。",
  list_todos: "列出待办事项（未完成的在前）。",
  complete_todo: "按完整 id 把待办事项标为完成。",
  delete_todo: "按完整 id 删除待办事项。",
};

const APPROVAL_TITLES_ZH: Table = {
  write_file: "写入文件",
  edit_file: "编辑文件",
  exec: "运行命令",
  run_skill_script: "运行技能脚本",
  agent_skill_manage: "修改你自己的技能",
  remember_memory: "记住一条记忆",
  update_memory: "修改一条记忆",
  forget_memory: "忘记一条记忆",
  save_memory: "保存到 MEMORY.md",
  create_note: "创建笔记",
  delete_note: "删除笔记",
  create_todo: "添加待办",
  complete_todo: "完成待办",
  delete_todo: "删除待办",
};

const MCP_DESCRIPTIONS_ZH: Table = {
  test_stdio_mcp: "内置的 stdio 测试服务器：say_hello 返回 Hello, Cash。",
  test_http_mcp: "内置的 Streamable HTTP 测试服务器（按需在 127.0.0.1 上启动）。",
  test_sse_mcp: "内置的 SSE 测试服务器（按需在 127.0.0.1 上启动）。",
};

const SKILL_TITLES_ZH: Table = {
  "cashcode-skill-creator": "技能创建向导",
};

const SKILL_DESCRIPTIONS_ZH: Table = {
  "cashcode-skill-creator":
    "创建或更新 CashCode 技能（SKILL.md 及其附属文件）的指南。当用户要求制作、整理、打包或改进可复用的技能、工作流或一组说明时使用。",
};

function pick(table: Table, lang: Language, id: string, fallback: string): string {
  return lang === "zh-CN" ? (table[id] ?? fallback) : fallback;
}

export const toolDescription = (lang: Language, tool: string, english: string) => pick(TOOL_DESCRIPTIONS_ZH, lang, tool, english);
export const approvalTitle = (lang: Language, tool: string, english: string) => pick(APPROVAL_TITLES_ZH, lang, tool, english);
export const mcpDescription = (lang: Language, server: string, english: string) => pick(MCP_DESCRIPTIONS_ZH, lang, server, english);
export const skillTitle = (lang: Language, skill: string, english: string) => pick(SKILL_TITLES_ZH, lang, skill, english);
export const skillDescription = (lang: Language, skill: string, english: string) =>
  pick(SKILL_DESCRIPTIONS_ZH, lang, skill, english);

/** What an approval will do, in the UI language (`approval.summary.<code>` from its params). */
export function approvalSummary(lang: Language, summary: ApprovalSummary): string {
  return translate(lang, `approval.summary.${summary.code}` as MessageKey, summary.params);
}
