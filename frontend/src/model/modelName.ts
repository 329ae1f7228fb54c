/**
 * How a model id is shown (issue 41): a local model's id can be a whole GGUF path
 * (`/home/me/models/qwen2.5-coder-7b-instruct-q4_k_m.gguf`), too long for a picker or a badge.
 * Such an id shows its last part; the whole id goes into the tooltip (`title`).
 */
const LONG = 32;

/** The short form of `id`: its last path part when it is a long path, else `id` itself. */
export function shortModelName(id: string): string {
  if (id.length <= LONG || !/[/\\]/.test(id)) return id;
  const last = id.split(/[/\\]/).filter(Boolean).pop();
  return last || id;
}
