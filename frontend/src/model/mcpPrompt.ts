/** Pure rules of inserting an MCP prompt into the composer (docs/decisions.md: a prompt is
 * inserted as editable text, never sent on its own). */
import type { McpPromptArgument, McpPromptMessage } from "@/api/generated";

/** The composer text of a `prompts/get` result: user messages as they are; any other role's
 * text is marked with its role, so a multi-message prompt stays readable when edited. */
export function promptText(messages: readonly McpPromptMessage[]): string {
  return messages
    .map((m) => (m.role === "user" ? m.text : `[${m.role}] ${m.text}`))
    .filter((t) => t.trim().length > 0)
    .join("\n\n");
}

/** Required arguments still empty (the form cannot be submitted while any is). */
export function missingArguments(args: readonly McpPromptArgument[], values: Record<string, string>): string[] {
  return args.filter((a) => a.required && !(values[a.name] ?? "").trim()).map((a) => a.name);
}

/** Only filled values are sent: an empty optional argument lets the server use its default. */
export function filledArguments(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim().length > 0));
}

/** Where inserted text goes: after what is already typed, separated by a blank line. */
export function appendText(current: string, inserted: string): string {
  return current.trim() ? `${current.replace(/\s+$/, "")}\n\n${inserted}` : inserted;
}
