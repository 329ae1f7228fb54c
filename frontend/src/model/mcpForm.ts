import type { McpServerCreate, McpServerView } from "@/api/generated";

export const MASK = "********";
export type McpTransport = "stdio" | "http" | "sse";

/** The add/edit form as text fields; secrets show as the mask and the mask keeps them. */
export interface McpDraft {
  name: string;
  transport: McpTransport;
  displayName: string;
  description: string;
  url: string;
  headers: string; // "Name: value" per line
  command: string;
  args: string; // one argument per line (no shell parsing)
  env: string; // "NAME=value" per line
  secretEnv: string; // comma-separated names
}

export function draftFrom(view: McpServerView | null): McpDraft {
  if (!view) {
    return { name: "", transport: "stdio", displayName: "", description: "", url: "", headers: "", command: "", args: "", env: "", secretEnv: "" };
  }
  return {
    name: view.name,
    transport: view.transport,
    displayName: view.display_name,
    description: view.description,
    url: view.url,
    headers: Object.entries(view.headers).map(([k, v]) => `${k}: ${v}`).join("\n"),
    command: view.command,
    args: view.args.join("\n"),
    env: Object.entries(view.env).map(([k, v]) => `${k}=${v}`).join("\n"),
    secretEnv: view.secret_env.join(", "),
  };
}

function lines(text: string): string[] {
  return text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
}

function pairs(text: string, sep: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines(text)) {
    const at = line.indexOf(sep);
    if (at <= 0) throw new Error(line);
    out[line.slice(0, at).trim()] = line.slice(at + sep.length).trim();
  }
  return out;
}

/** The create/update payload. Throws Error(line) for a malformed header or env line. */
export function toPayload(d: McpDraft): McpServerCreate {
  const base = { name: d.name.trim(), transport: d.transport, display_name: d.displayName.trim(), description: d.description.trim() };
  if (d.transport === "stdio") {
    return {
      ...base,
      command: d.command.trim(),
      args: d.args.split("\n").filter((a) => a.trim().length > 0),
      env: pairs(d.env, "="),
      secret_env: d.secretEnv.split(",").map((s) => s.trim()).filter((s) => s.length > 0),
    };
  }
  return { ...base, url: d.url.trim(), headers: pairs(d.headers, ":") };
}
