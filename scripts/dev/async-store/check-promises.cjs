// Lists places where a Promise is used as if it were its value, which the type checker accepts: a condition
// (`if (p)`, `!p`, `p && …`, `p ? … : …`, `p ?? …`), a comparison, a template literal, an object spread, a
// Promise-valued property of an object literal handed somewhere, a promise handed to a parameter that does not
// take one (`Object.keys(p)`, `JSON.stringify(p)`), a promise returned unawaited from a try block, a
// promise-returning predicate (always truthy), a statement nobody awaits, and an async function
// given where a callback's result is ignored (`() => void`: its rejection goes unhandled and its work unordered).
// Usage: node scripts/dev/async-store/check-promises.cjs <repo> [tsconfig] [path prefixes to report...]
// Each line is file:line:col kind text; review each (a fire-and-forget call that is meant may stay, with `void`).
const ts = require(require.resolve("typescript", { paths: [process.cwd(), "/work/main"] }));
const path = require("node:path");

const repo = path.resolve(process.argv[2] ?? ".");
const configName = process.argv[3] ?? "tsconfig.json";
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
const reported = (f) => {
  const rel = path.relative(repo, f);
  return (
    !rel.startsWith("..") &&
    !rel.includes("node_modules") &&
    (onlyUnder.length === 0 || onlyUnder.some((p) => rel.startsWith(p)))
  );
};

function isPromiseType(type) {
  if (!type) return false;
  if (type.isUnion()) return type.types.some(isPromiseType);
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  if (symbol && (symbol.getName() === "Promise" || symbol.getName() === "PromiseLike")) return true;
  const then = type.getProperty?.("then");
  return Boolean(
    then &&
      checker
        .getTypeOfSymbolAtLocation(
          then,
          then.valueDeclaration ?? then.declarations?.[0] ?? type.symbol?.valueDeclaration,
        )
        .getCallSignatures().length &&
      symbol?.getName() !== "Object",
  );
}
const promiseAt = (node) => isPromiseType(checker.getTypeAtLocation(node));

const findings = [];
function report(sf, node, kind) {
  const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  const text = node.getText(sf).replace(/\s+/g, " ").slice(0, 110);
  findings.push(`${path.relative(repo, sf.fileName)}:${line + 1}:${character + 1} ${kind} ${text}`);
}

function returnsVoid(signature) {
  const type = checker.getReturnTypeOfSignature(signature);
  return (type.flags & ts.TypeFlags.Void) !== 0;
}

function visit(sf, node) {
  const K = ts.SyntaxKind;
  if (
    (ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node)) &&
    promiseAt(node.expression)
  )
    report(sf, node.expression, "condition");
  if (ts.isConditionalExpression(node) && promiseAt(node.condition)) report(sf, node.condition, "condition");
  if (ts.isPrefixUnaryExpression(node) && node.operator === K.ExclamationToken && promiseAt(node.operand))
    report(sf, node.operand, "negated");
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    if (
      (op === K.AmpersandAmpersandToken || op === K.BarBarToken || op === K.QuestionQuestionToken) &&
      promiseAt(node.left)
    )
      report(sf, node.left, "logical-left");
    if (
      [
        K.EqualsEqualsEqualsToken,
        K.ExclamationEqualsEqualsToken,
        K.EqualsEqualsToken,
        K.ExclamationEqualsToken,
        K.LessThanToken,
        K.GreaterThanToken,
      ].includes(op) &&
      (promiseAt(node.left) || promiseAt(node.right))
    )
      report(sf, node, "compared");
  }
  if (ts.isTemplateSpan(node) && promiseAt(node.expression)) report(sf, node.expression, "template");
  if ((ts.isSpreadAssignment(node) || ts.isSpreadElement(node)) && promiseAt(node.expression))
    report(sf, node.expression, "spread");
  if (ts.isPropertyAssignment(node) && ts.isCallExpression(node.initializer) && promiseAt(node.initializer)) {
    const contextual = checker.getContextualType(node.initializer);
    if (!contextual || !isPromiseType(contextual)) report(sf, node, "property");
  }
  if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments)
    for (const arg of node.arguments) {
      if (ts.isAwaitExpression(arg) || ts.isSpreadElement(arg) || !promiseAt(arg)) continue;
      const contextual = checker.getContextualType(arg);
      if (contextual && !isPromiseType(contextual) && !(contextual.flags & ts.TypeFlags.Unknown))
        report(sf, arg, "argument");
    }
  // try { return p; } catch: a rejection of p escapes the catch (and the finally runs before p settles).
  if (
    ts.isReturnStatement(node) &&
    node.expression &&
    !ts.isAwaitExpression(node.expression) &&
    promiseAt(node.expression)
  ) {
    const inTry = ts.findAncestor(node, (n) =>
      ts.isFunctionLike(n) ? "quit" : ts.isBlock(n) && ts.isTryStatement(n.parent) && n.parent.tryBlock === n,
    );
    if (inTry) report(sf, node.expression, "returned-in-try");
  }
  if (ts.isExpressionStatement(node)) {
    const e = node.expression;
    if ((ts.isCallExpression(e) || ts.isNewExpression(e)) && promiseAt(e)) report(sf, e, "floating");
  }
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const contextual = checker.getContextualType(node);
    const signatures = contextual?.getCallSignatures() ?? [];
    const own = checker.getSignatureFromDeclaration(node);
    const returnsPromise = own && isPromiseType(checker.getReturnTypeOfSignature(own));
    if (returnsPromise && signatures.length > 0 && signatures.every(returnsVoid))
      report(sf, node, "promise-to-void");
    // A predicate handed a promise (always truthy): filter/some/every/find take `unknown`, others a boolean.
    const call = node.parent;
    const predicate =
      ts.isCallExpression(call) &&
      ts.isPropertyAccessExpression(call.expression) &&
      ["filter", "some", "every", "find", "findIndex", "findLast", "findLastIndex"].includes(
        call.expression.name.text,
      );
    const wantsBoolean = signatures.some(
      (sig) => (checker.getReturnTypeOfSignature(sig).flags & ts.TypeFlags.BooleanLike) !== 0,
    );
    if (returnsPromise && signatures.length > 0 && (predicate || wantsBoolean))
      report(sf, node, "promise-predicate");
  }
  ts.forEachChild(node, (child) => visit(sf, child));
}

for (const sf of program.getSourceFiles()) {
  if (sf.isDeclarationFile || !reported(sf.fileName)) continue;
  visit(sf, sf);
}
for (const line of findings) console.log(line);
console.error(`${findings.length} findings`);
