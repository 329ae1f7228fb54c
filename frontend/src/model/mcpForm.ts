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
  allowPlainHttpAuth: boolean; // the user confirmed credential headers over plain http://
  sandbox: boolean; // stdio: run confined by the sandbox (off for servers the user adds)
  network: boolean; // stdio, sandboxed: TCP allowed (Landlock filters by port, not by host)
}

export function draftFrom(view: McpServerView | null): McpDraft {
  if (!view) {
    return { name: "", transport: "stdio", displayName: "", description: "", url: "", headers: "", command: "", args: "", env: "", secretEnv: "", allowPlainHttpAuth: false, sandbox: false, network: false };
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
    allowPlainHttpAuth: false,
    sandbox: view.sandbox,
    network: view.network,
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
      sandbox: d.sandbox,
      network: d.sandbox && d.network, // the network grant means nothing unsandboxed
    };
  }
  const remote = { ...base, url: d.url.trim(), headers: pairs(d.headers, ":") };
  return d.allowPlainHttpAuth && sendsPlainHttpAuth(d) ? { ...remote, allow_plain_http_auth: true } : remote;
}

const AUTH_HEADERS = new Set(["authorization", "proxy-authorization"]);
// The server's credential-name rule (app/support/launch_env.py SECRET_NAME): X-Api-Key, Cookie, …
const CREDENTIAL_NAME =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|(?:^|[_-])(?:PW|PWD|PAT|PASS|SIG|SIGNATURE)(?:[_-]|$)/i;

function isCredentialHeader(name: string): boolean {
  return AUTH_HEADERS.has(name.toLowerCase()) || CREDENTIAL_NAME.test(name);
}

/** True when the draft would send a credential header (Authorization, X-Api-Key, Cookie, …)
 * unencrypted to another computer (plain http://, not loopback): the server refuses it unless
 * the user confirms. */
export function sendsPlainHttpAuth(d: McpDraft): boolean {
  if (d.transport === "stdio") return false;
  let url: URL;
  try {
    url = new URL(d.url.trim());
  } catch {
    return false;
  }
  if (url.protocol !== "http:") return false;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host)) return false;
  return lines(d.headers).some((line) => isCredentialHeader(line.slice(0, Math.max(0, line.indexOf(":"))).trim()));
}
