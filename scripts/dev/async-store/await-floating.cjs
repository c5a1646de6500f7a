// Test-side fix after the codemods: a call statement whose promise nobody awaits (`applySeed(db, …);`,
// `db.close();`) lets the test go on before the store has the rows, or end before the file is closed. Phase 2
// awaits only calls that became promises during its own run; on test/ every domain call was one already.
// Awaits each such statement (not `.catch`/`.then`/`.finally` chains, which are meant to run on their own) and
// makes the enclosing function async, to a fixed point (its own callers may then float in turn).
// Prints each function it could not make async (constructors, accessors, explicit non-Promise return types).
// Usage: node scripts/dev/async-store/await-floating.cjs <repo> [tsconfig] [path prefixes to fix...]
const ts = require(require.resolve("typescript", { paths: [process.cwd(), "/work/main"] }));
const fs = require("node:fs");
const path = require("node:path");

const repo = path.resolve(process.argv[2] ?? ".");
const configName = process.argv[3] ?? "tsconfig.check.json";
const onlyUnder = process.argv.slice(4);
const parsed = ts.getParsedCommandLineOfConfigFile(
  path.join(repo, configName),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => console.error(d.messageText) },
);
const fixable = (file) => {
  const rel = path.relative(repo, file);
  if (rel.startsWith("..") || rel.includes("node_modules")) return false;
  return onlyUnder.length === 0 || onlyUnder.some((p) => rel.startsWith(p));
};
const isPromise = (type) =>
  type.isUnion()
    ? type.types.some(isPromise)
    : ["Promise", "PromiseLike"].includes((type.getSymbol() ?? type.aliasSymbol)?.getName());
const skipParens = (e) => (ts.isParenthesizedExpression(e) ? skipParens(e.expression) : e);
const CHAINS = ["catch", "then", "finally"];

function asyncAt(fn, sf) {
  if (fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) return undefined;
  if (fn.type && !/^Promise</.test(fn.type.getText(sf))) return { problem: "explicit return type" };
  if (ts.isArrowFunction(fn)) return { at: fn.getStart(sf) };
  if (ts.isMethodDeclaration(fn)) return { at: fn.name.getStart(sf) };
  if (ts.isFunctionDeclaration(fn) || ts.isFunctionExpression(fn)) {
    const keyword = fn.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.FunctionKeyword);
    return { at: keyword.getStart(sf) };
  }
  return { problem: ts.SyntaxKind[fn.kind] };
}

let program;
let total = 0;
for (let round = 1; round <= 20; round++) {
  program = ts.createProgram(parsed.fileNames, parsed.options, undefined, program);
  const checker = program.getTypeChecker();
  let changed = 0;
  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || !fixable(sf.fileName)) continue;
    const inserts = new Map();
    const visit = (node) => {
      if (ts.isExpressionStatement(node)) {
        const call = skipParens(node.expression);
        const chained =
          ts.isCallExpression(call) &&
          ts.isPropertyAccessExpression(call.expression) &&
          CHAINS.includes(call.expression.name.text);
        if (ts.isCallExpression(call) && !chained && isPromise(checker.getTypeAtLocation(call))) {
          const fn = ts.findAncestor(node, ts.isFunctionLike);
          const made = fn && asyncAt(fn, sf);
          if (made?.problem) {
            const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
            console.log(`${path.relative(repo, sf.fileName)}:${line + 1} not made async (${made.problem})`);
          } else {
            inserts.set(node.expression.getStart(sf), "await ");
            if (made) inserts.set(made.at, "async ");
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    if (inserts.size === 0) continue;
    let text = sf.getFullText();
    for (const [at, what] of [...inserts].sort((a, b) => b[0] - a[0]))
      text = text.slice(0, at) + what + text.slice(at);
    fs.writeFileSync(sf.fileName, text);
    changed += inserts.size;
  }
  total += changed;
  if (changed === 0) break;
  program = undefined; // files changed on disk: read them afresh
}
console.error(`${total} insertions`);
