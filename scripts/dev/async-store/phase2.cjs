// Phase 2: applies TypeScript's own code fixes until none is left: `await` in a sync function makes it async,
// an async function's return type becomes Promise<…>, and a Promise used as its value gets its `await`.
// Then adds `await` to call statements that newly return a Promise nobody awaits.
const ts = require("/work/main/node_modules/typescript");
const fs = require("node:fs");
const path = require("node:path");

const repo = path.resolve(process.argv[2]);
const configName = process.argv[3] ?? "tsconfig.json";
const onlyUnder = process.argv.slice(4); // prefixes of files to fix (others are read only)
const parsed = ts.getParsedCommandLineOfConfigFile(path.join(repo, configName), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => console.error(d.messageText),
});
const files = new Map(parsed.fileNames.map((f) => [f, { version: 0, text: fs.readFileSync(f, "utf8") }]));
const host = {
  getScriptFileNames: () => [...files.keys()],
  getScriptVersion: (f) => String(files.get(f)?.version ?? 0),
  getScriptSnapshot: (f) => {
    const entry = files.get(f);
    if (entry) return ts.ScriptSnapshot.fromString(entry.text);
    if (!fs.existsSync(f)) return undefined;
    return ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8"));
  },
  getCurrentDirectory: () => repo,
  getCompilationSettings: () => parsed.options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const fixable = (f) => onlyUnder.length === 0 || onlyUnder.some((p) => path.relative(repo, f).startsWith(p));

function applyChanges(changes) {
  let n = 0;
  for (const change of changes) {
    const entry = files.get(change.fileName);
    if (!entry || !fixable(change.fileName)) continue;
    const sorted = [...change.textChanges].sort((a, b) => b.span.start - a.span.start);
    for (const tc of sorted) {
      entry.text = entry.text.slice(0, tc.span.start) + tc.newText + entry.text.slice(tc.span.start + tc.span.length);
      n++;
    }
    entry.version++;
  }
  return n;
}

const FIX_IDS = ["fixAwaitInSyncFunction", "fixReturnTypeInAsyncFunction", "addMissingAwait"];
const formatOptions = ts.getDefaultFormatCodeSettings();

// Call statements already left unawaited before the change (fire-and-forget on purpose): never awaited by us.
function floatingCalls(fileName) {
  const program = service.getProgram();
  const sf = program.getSourceFile(fileName);
  const checker = program.getTypeChecker();
  const found = [];
  const visit = (node) => {
    if (ts.isExpressionStatement(node) && ts.isCallExpression(skipParens(node.expression))) {
      const call = skipParens(node.expression);
      const type = checker.getTypeAtLocation(call);
      if (isPromise(checker, type)) found.push({ node, call, key: call.expression.getText(sf) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}
function skipParens(e) {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}
function isPromise(checker, type) {
  if (type.isUnion()) return type.types.some((t) => isPromise(checker, t));
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  return symbol?.getName() === "Promise";
}


// A Promise used as its value where TypeScript offers no fix (outside async functions): await it at its source.
function awaitAtSource(fileName) {
  const program = service.getProgram();
  const sf = program.getSourceFile(fileName);
  const checker = program.getTypeChecker();
  const inserts = new Set();
  const consider = (expr) => {
    expr = skipParens(expr);
    if (ts.isNonNullExpression(expr) && ts.isCallExpression(skipParens(expr.expression)) && isPromise(checker, checker.getTypeAtLocation(expr.expression))) {
      const inner = skipParens(expr.expression);
      inserts.add(`${inner.getStart(sf)}|(await `);
      inserts.add(`${inner.getEnd()}|)`);
      return true;
    }
    if (ts.isAwaitExpression(expr.parent) || (ts.isParenthesizedExpression(expr.parent) && ts.isAwaitExpression(expr.parent.parent))) return false;
    if (!isPromise(checker, checker.getTypeAtLocation(expr))) return false;
    if (ts.isCallExpression(expr)) {
      const parent = expr.parent;
      const wrap =
        (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent) || ts.isNonNullExpression(parent)) &&
        parent.expression === expr;
      if (wrap) {
        inserts.add(`${expr.getStart(sf)}|(await `);
        inserts.add(`${expr.getEnd()}|)`);
      } else inserts.add(`${expr.getStart(sf)}|await `);
      return true;
    }
    if (ts.isIdentifier(expr)) {
      const symbol = checker.getSymbolAtLocation(expr);
      const decl = symbol?.valueDeclaration;
      if (decl && ts.isVariableDeclaration(decl) && decl.initializer && decl.getSourceFile() === sf) {
        const init = skipParens(decl.initializer);
        if (ts.isCallExpression(init) || ts.isAsExpression(init) || ts.isNonNullExpression(init)) {
          inserts.add(`${decl.initializer.getStart(sf)}|await `);
          return true;
        }
      }
    }
    return false;
  };
  for (const d of service.getSemanticDiagnostics(fileName)) {
    if (d.start === undefined) continue;
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!text.includes("Promise<")) continue;
    let node = findNode(sf, d.start, d.start + d.length);
    for (let n = node; n && !ts.isBlock(n) && !ts.isSourceFile(n); n = n.parent) {
      if (ts.isExpression(n) && consider(n)) break;
      if (ts.isPropertyAccessExpression(n) && consider(n.expression)) break;
      if (ts.isPropertyAssignment(n) && consider(n.initializer)) break;
      if (ts.isReturnStatement(n) && n.expression && consider(n.expression)) break;
      if (ts.isElementAccessExpression(n) && consider(n.expression)) break;
    }
  }
  // hono's c.json(value): a Promise there is inferred, not an error at the argument.
  const visit = (node) => {
    // const x = cond ? promise : value  ->  await (…)
    if (ts.isVariableDeclaration(node) && node.initializer && !ts.isAwaitExpression(node.initializer)) {
      const init = node.initializer;
      const fn = ts.findAncestor(node, (n) => ts.isFunctionLike(n));
      if (fn && isPromise(checker, checker.getTypeAtLocation(init)) && ts.isConditionalExpression(skipParens(init))) {
        inserts.add(`${init.getStart(sf)}|await (`);
        inserts.add(`${init.getEnd()}|)`);
      }
    }
    // await f()!  ->  (await f())!
    if (ts.isAwaitExpression(node) && ts.isNonNullExpression(node.expression) && isPromise(checker, checker.getTypeAtLocation(node.expression.expression))) {
      inserts.add(`${node.getStart(sf)}|(`);
      inserts.add(`${node.expression.expression.getEnd()}|)`);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "json" && node.arguments[0]) consider(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...inserts];
}
function findNode(sf, start, end) {
  let found = sf;
  const visit = (node) => {
    if (node.getStart(sf) <= start && node.getEnd() >= end) {
      found = node;
      ts.forEachChild(node, visit);
    }
  };
  ts.forEachChild(sf, visit);
  return found;
}

const originallyFloating = new Map();
for (const f of files.keys()) if (fixable(f)) originallyFloating.set(f, new Set(floatingCalls(f).map((c) => c.key)));

for (let round = 1; round <= 60; round++) {
  let changed = 0;
  for (const fileName of files.keys()) {
    if (!fixable(fileName)) continue;
    const diagnostics = service.getSemanticDiagnostics(fileName);
    if (diagnostics.length === 0) continue;
    for (const fixId of FIX_IDS) {
      try {
        const combined = service.getCombinedCodeFix({ type: "file", fileName }, fixId, formatOptions, {});
        changed += applyChanges(combined.changes);
      } catch {}
    }
  }
  // Newly floating promises: a call statement whose callee now returns a Promise, in an async function.
  for (const fileName of files.keys()) {
    if (!fixable(fileName)) continue;
    const before = originallyFloating.get(fileName) ?? new Set();
    const entry = files.get(fileName);
    const inserts = [];
    for (const { node, call, key } of floatingCalls(fileName)) {
      if (before.has(key)) continue;
      const fn = ts.findAncestor(node, (n) => ts.isFunctionLike(n));
      if (!fn) continue;
      inserts.push(node.expression.getStart());
    }
    if (inserts.length) {
      inserts.sort((a, b) => b - a);
      for (const at of inserts) entry.text = entry.text.slice(0, at) + "await " + entry.text.slice(at);
      entry.version++;
      changed += inserts.length;
    }
  }
  for (const fileName of files.keys()) {
    if (!fixable(fileName)) continue;
    const inserts = awaitAtSource(fileName)
      .map((e) => ({ at: Number(e.slice(0, e.indexOf("|"))), text: e.slice(e.indexOf("|") + 1) }))
      .sort((a, b) => b.at - a.at || (a.text === ")" ? -1 : 1));
    if (!inserts.length) continue;
    const entry = files.get(fileName);
    for (const { at, text } of inserts) entry.text = entry.text.slice(0, at) + text + entry.text.slice(at);
    entry.version++;
    changed += inserts.length;
  }
  let errors = 0;
  for (const f of files.keys()) if (fixable(f)) errors += service.getSemanticDiagnostics(f).length;
  console.log(`round ${round}: ${changed} edits, ${errors} errors left`);
  if (changed === 0) break;
}
for (const [fileName, entry] of files) {
  if (entry.version > 0) fs.writeFileSync(fileName, entry.text);
}
