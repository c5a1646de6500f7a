// Test-side fix after the codemods: `expect(x)` where x is now a promise compares the promise, not its value.
// Awaits the argument (`expect(await x)`) and a matcher's promise argument, unless the assertion already reads `.resolves` / `.rejects`.
// Usage: node scripts/dev/async-store/await-expect.cjs <repo> [tsconfig] [path prefixes to fix...]
const ts = require(require.resolve("typescript", { paths: [process.cwd(), "/work/main"] }));
const fs = require("node:fs");
const path = require("node:path");

const repo = path.resolve(process.argv[2] ?? ".");
const configName = process.argv[3] ?? "tsconfig.check.json";
const onlyUnder = process.argv.slice(4);
const parsed = ts.getParsedCommandLineOfConfigFile(
  path.join(repo, configName),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => console.error(d.messageText),
  },
);
const program = ts.createProgram(parsed.fileNames, parsed.options);
const checker = program.getTypeChecker();
const isPromise = (type) =>
  type.isUnion()
    ? type.types.some(isPromise)
    : ["Promise", "PromiseLike"].includes(type.getSymbol()?.getName());

let total = 0;
for (const sf of program.getSourceFiles()) {
  const rel = path.relative(repo, sf.fileName);
  if (sf.isDeclarationFile || rel.startsWith("..") || rel.includes("node_modules")) continue;
  if (onlyUnder.length > 0 && !onlyUnder.some((p) => rel.startsWith(p))) continue;
  const edits = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "expect") {
      const arg = node.arguments[0];
      const parent = node.parent;
      const reads =
        ts.isPropertyAccessExpression(parent) && ["resolves", "rejects"].includes(parent.name.text);
      if (arg && !reads && !ts.isAwaitExpression(arg) && isPromise(checker.getTypeAtLocation(arg)))
        edits.push({ start: arg.getStart(sf), end: arg.getEnd() });
    }
    // A matcher's expected value (`expect(a).toBe(count())`) compares against the promise too.
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      /^expect\(/.test(node.expression.expression.getText(sf)) &&
      !/\.(resolves|rejects)\b/.test(node.expression.expression.getText(sf))
    )
      for (const arg of node.arguments)
        if (!ts.isAwaitExpression(arg) && isPromise(checker.getTypeAtLocation(arg)))
          edits.push({ start: arg.getStart(sf), end: arg.getEnd() });
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (edits.length === 0) continue;
  let text = sf.getFullText();
  for (const e of edits.sort((a, b) => b.start - a.start))
    text = `${text.slice(0, e.start)}await (${text.slice(e.start, e.end)})${text.slice(e.end)}`;
  fs.writeFileSync(sf.fileName, text);
  total += edits.length;
  console.log(`${rel}: ${edits.length}`);
}
console.error(`${total} expect arguments awaited`);
