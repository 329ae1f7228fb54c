// Every refusal of the three archive importers (Skill ZIP, MCP bundle, .cashagent agent package)
// is worded in the UI language from its key and parameters (issue 41): the English is exactly
// today's sentence, the Chinese has no English word left but the parameters and the names of
// formats and files.
import { describe, expect, it } from "vitest";
import { dictionaries } from "@/i18n";
import { apiErrorKey, errorText } from "@/i18n/errors";

// key → (parameters, today's English sentence, written out).
const SENTENCES: Record<string, [Record<string, string>, string]> = {
  "zip.control": [{}, "A member name contains control characters."],
  "zip.drive": [{ name: "C:/x" }, "'C:/x' has a drive letter or ':' in its path."],
  "zip.absolute": [{ name: "/abs" }, "'/abs' is an absolute path."],
  "zip.backslash": [{ name: "a\\b" }, "'a\\b' uses a backslash in its path; ZIP paths must use '/'."],
  "zip.long_name": [{}, "A member name is longer than 1024 characters."],
  "zip.traversal": [{ name: "demo/../x", what: "Skill" }, "'demo/../x' tries to leave the Skill folder ('..')."],
  "zip.traversal_outside": [{ name: "demo/x", what: "package" }, "'demo/x' would land outside the package."],
  "zip.odd_path": [{ name: "a//b" }, "'a//b' has an empty or '.' path segment."],
  "zip.encrypted": [{ name: "s.txt" }, "'s.txt' is encrypted; password-protected ZIPs are refused."],
  "zip.symlink": [{ name: "link" }, "'link' is a symbolic link; links are refused."],
  "zip.special": [{ name: "pipe" }, "'pipe' is a device, pipe or socket, not a file."],
  "zip.duplicate": [{ name: "a.md" }, "'a.md' appears twice in the ZIP."],
  "zip.duplicate_kind": [{ name: "x" }, "'x' is both a file and a folder in the ZIP."],
  "zip.unreadable": [{ reason: "Permission denied" }, "Cannot read the ZIP file (Permission denied)."],
  "zip.not_file": [{ name: "/dev/zero" }, "'/dev/zero' is not a regular file, so it cannot be a ZIP archive."],
  "zip.archive_size": [{ size: "11534336", max: "10" }, "The ZIP is 11534336 bytes; the limit is 10 MiB."],
  "zip.not_zip": [{ reason: "File is not a zip file" }, "The file is not a readable ZIP archive (File is not a zip file)."],
  "zip.members": [{ count: "513", max: "512" }, "The ZIP has 513 entries; the limit is 512."],
  "zip.file_size": [{ name: "big.bin", max: "5" }, "'big.bin' is larger than 5 MiB."],
  "zip.file_size_bytes": [{ name: "manifest.json", max: "1048576" }, "'manifest.json' is larger than 1048576 bytes."],
  "zip.file_size_expands": [{ name: "big.bin", max: "5" }, "'big.bin' expands past 5 MiB."],
  "zip.expanded_size": [{ max: "50" }, "The ZIP expands past 50 MiB."],
  "zip.bomb": [{ max: "50" }, "The ZIP expands past 50 MiB (compression bomb)."],
  "zip.corrupt": [
    { name: "a.bin", reason: "BadZipFile: Bad CRC-32 for file 'a.bin'" },
    "'a.bin' cannot be read (BadZipFile: Bad CRC-32 for file 'a.bin').",
  ],
  "zip.size_mismatch": [{ name: "a.bin" }, "'a.bin' does not have the size its header claims."],
  "skill.zip_beside_folder": [
    { folder: "demo", entries: "README.md" },
    "The ZIP has files beside its Skill folder 'demo/': README.md. Put them inside the folder or remove them.",
  ],
  "skill.zip_beside_folder_more": [
    { folder: "demo", entries: "a, b", more: "3" },
    "The ZIP has files beside its Skill folder 'demo/': a, b and 3 more. Put them inside the folder or remove them.",
  ],
  "skill.zip_beside_skill_md": [
    { entries: "notes.txt" },
    "The ZIP has files beside its SKILL.md that the Skill never names: notes.txt. " +
      "Name them in SKILL.md, move them into a folder of the Skill, or remove them.",
  ],
  "skill.zip_beside_skill_md_more": [
    { entries: "a, b", more: "2" },
    "The ZIP has files beside its SKILL.md that the Skill never names: a, b and 2 more. " +
      "Name them in SKILL.md, move them into a folder of the Skill, or remove them.",
  ],
  "agent.package.not_json": [{ reason: "Expecting value" }, "manifest.json is not valid JSON (Expecting value)"],
  "agent.package.not_object": [{}, "manifest.json is not a JSON object"],
  "agent.package.unknown_field": [{ where: "mystery" }, "manifest.json has a field this version does not know: mystery"],
  "agent.package.invalid_field": [
    { where: "agent.name", reason: "Field required" },
    "manifest.json is not valid at agent.name: Field required",
  ],
  "agent.package.mode": [
    { mode: "'autonomous'", where: "manifest" },
    "the package asks for the approval mode 'autonomous' (manifest); a package may ask for at most " +
      "'ask_writes' (Ask before writing), the user chooses above",
  ],
  "agent.package.claims": [
    { claim: "'approvals'", where: "manifest" },
    "the package claims 'approvals' (manifest); approvals, grants, workspace trust and autonomous mode " +
      "are only ever given by the user",
  ],
  "agent.package.no_manifest": [{}, "the file has no manifest.json: not a .cashagent package"],
  "agent.package.unlisted": [{ name: "x.sh" }, "'x.sh' is in the ZIP but not in the manifest"],
  "agent.package.missing": [{ name: "x.sh" }, "the manifest lists 'x.sh', which the ZIP lacks"],
  "agent.package.hash": [{ name: "x.sh" }, "'x.sh' does not match the sha256 the manifest pins for it"],
};

// Names of formats, units and files that stay as they are in Chinese.
const KEPT = ["SKILL.md", "manifest.json", ".cashagent", "ask_writes", "sha256", "JSON", "ZIP", "MiB"];

function englishLeft(template: string): string[] {
  let text = template.replace(/\{\w+\}/g, " ");
  for (const word of KEPT) text = text.split(word).join(" ");
  return text.match(/[A-Za-z]+/g) ?? [];
}

describe("archive refusals (issue 41)", () => {
  const keys = Object.keys(SENTENCES);

  it("cover every ZIP rule the backend can say", () => {
    const zipKeys = Object.keys(dictionaries.en).filter((k) => k.startsWith("apiError.zip."));
    expect(zipKeys.map((k) => k.slice("apiError.".length)).sort()).toEqual(keys.filter((k) => k.startsWith("zip.")).sort());
  });

  it.each(keys)("%s keeps today's English and has no English word left in Chinese", (key) => {
    const [params, english] = SENTENCES[key];
    expect(errorText("en", { code: "invalid", message: english, key, params })).toBe(english);
    const chinese = dictionaries["zh-CN"][apiErrorKey(key)];
    expect(englishLeft(chinese)).toEqual([]);
    const worded = errorText("zh-CN", { code: "invalid", message: english, key, params });
    expect(worded).not.toBe(english);
    for (const value of Object.values(params)) {
      if (!["Skill", "bundle", "package"].includes(value)) expect(worded).toContain(value);
    }
  });

  it("names the package in Chinese, alone and inside an importer's frame", () => {
    const skill = { code: "invalid", message: "", key: "zip.traversal", params: { name: "demo/../x", what: "Skill" } };
    expect(errorText("zh-CN", skill)).toBe("“demo/../x”试图离开技能所在的文件夹（“..”）。");
    const reason = "'skills/a/big.bin' is larger than 5 MiB.";
    const pkg = {
      code: "invalid",
      message: `The agent package was refused: ${reason}`,
      key: "agent.package_refused",
      params: { reason, reason_key: "zip.file_size", reason_name: "skills/a/big.bin", reason_max: "5" },
    };
    expect(errorText("zh-CN", pkg)).toBe("智能体包被拒绝：“skills/a/big.bin”大于 5 MiB。");
    expect(errorText("en", pkg)).toBe(pkg.message);
    const outside = { ...pkg, params: { reason, reason_key: "zip.traversal_outside", reason_name: "x", reason_what: "package" } };
    expect(errorText("zh-CN", outside)).toBe("智能体包被拒绝：“x”会被解压到智能体包之外。");
  });
});
