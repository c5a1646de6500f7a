// One-off: moves the domain from synchronous node:sqlite calls to the asynchronous store interface (phase 1:
// textual rewrite of statement()/prepare() calls, commitSoon and inTransaction, and the Database type).
const ts = require("/work/main/node_modules/typescript");
const fs = require("node:fs");
const path = require("node:path");

function matchNode(node, sf) {
  if (!ts.isCallExpression(node)) return undefined;
  if (ts.isPropertyAccessExpression(node.expression)) {
    const method = node.expression.name.text;
    const target = node.expression.expression;
    if (["get", "all", "run"].includes(method) && ts.isCallExpression(target)) {
      let db;
      let sql;
      if (ts.isIdentifier(target.expression) && target.expression.text === "statement" && target.arguments.length === 2) {
        [db, sql] = target.arguments;
      } else if (
        ts.isPropertyAccessExpression(target.expression) &&
        target.expression.name.text === "prepare" &&
        target.arguments.length === 1
      ) {
        db = target.expression.expression;
        sql = target.arguments[0];
      }
      if (db && sql) {
        const args = node.arguments.map((a) => a.getText(sf));
        const params = args.length ? `, [${args.join(", ")}]` : "";
        return { start: node.getStart(sf), end: node.getEnd(), text: `(await ${db.getText(sf)}.${method}(${sql.getText(sf)}${params}))` };
      }
    }
  }
  if (ts.isIdentifier(node.expression) && ["commitSoon", "inTransaction"].includes(node.expression.text) && node.arguments.length === 2) {
    const [db, fn] = node.arguments;
    let fnText = fn.getText(sf);
    if (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) {
      if (!fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) fnText = `async ${fnText}`;
    } else fnText = `async () => ${fnText}()`;
    const call = `${db.getText(sf)}.transaction(${fnText})`;
    return { start: node.getStart(sf), end: node.getEnd(), text: node.expression.text === "inTransaction" ? `(await ${call})` : call };
  }
  return undefined;
}

function collect(node, sf, edits) {
  const before = edits.length;
  ts.forEachChild(node, (child) => collect(child, sf, edits));
  if (edits.length > before) return;
  const edit = matchNode(node, sf);
  if (edit) edits.push(edit);
}

function rewrite(file) {
  const original = fs.readFileSync(file, "utf8");
  let text = original;
  for (let pass = 0; pass < 30; pass++) {
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const edits = [];
    collect(sf, sf, edits);
    if (edits.length === 0) break;
    edits.sort((a, b) => b.start - a.start);
    for (const edit of edits) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  }
  text = text.replace(
    /import type \{ Database \} from "((?:\.\.?\/)+)(store\/)?sqlite\.js";/,
    (_, up, dir) => `import type { Store } from "${up}${dir ?? ""}store.js";`,
  );
  if (text !== original && /from "[^"]*store\.js";/.test(text)) text = text.replace(/\bDatabase\b/g, "Store");
  for (const name of ["statement", "commitSoon", "inTransaction"]) {
    const uses = text.match(new RegExp(`\\b${name}\\b`, "g"))?.length ?? 0;
    const importLine = new RegExp(`import \\{ ${name} \\} from "[^"]+";\\n`);
    if (uses === 1 && importLine.test(text)) text = text.replace(importLine, "");
  }
  if (text !== original) fs.writeFileSync(file, text);
  return text !== original;
}

function listFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

const repo = path.resolve(process.argv[2]);
const skip = (rel) => rel.startsWith("src/server/store/") && rel !== "src/server/store/operations.ts";
let n = 0;
for (const root of process.argv.slice(3)) {
  for (const file of listFiles(path.join(repo, root))) {
    if (skip(path.relative(repo, file))) continue;
    if (rewrite(file)) n++;
  }
}
console.log(`phase1: rewrote ${n} files`);
