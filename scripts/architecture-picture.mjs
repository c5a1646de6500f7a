// Draws docs/architecture.md's layer picture from the code: dependency-cruiser reads every import of src/ and
// runner/ with the project's rules (.dependency-cruiser.cjs), the imports are collapsed to boxes, and a mermaid
// flowchart replaces the block between the doc's two markers. A test fails when the committed block differs.
//
//   node scripts/architecture-picture.mjs            rewrite the block (npm run architecture-picture)
//   node scripts/architecture-picture.mjs --check    exit 1, naming the file, when the block is stale
//   --root DIR                                       another checkout (the tests use a small one)
//
// The boxes: one per folder (or loose file) of src/server/*.ts and listen/ (the composition), surfaces/, domain/
// and adapters/; one for store/ and one for primitives/; one per folder of src/ and runner/ outside the service,
// the pure core's (the folders the sandbox-runtime rule names, and src/'s own files) in one group. Hundreds of
// arrows between folders read as nothing, so arrows join layers: one from a layer to another says some file of
// the first imports one of the second. Outside the service a folder's arrows are its own, but the pure core's are
// the group's. An arrow that other arrows already imply is left out; one that breaks a rule is always drawn,
// dotted and named by the rule. Everything is sorted, so the same code draws the same picture, and folders that
// appear or disappear simply appear or disappear (a folder of src/server/ in no layer gets a group of its own).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { cruise } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

export const BEGIN = "<!-- layers:begin -->";
export const END = "<!-- layers:end -->";
export const DOC = join("docs", "architecture.md");
const COMMAND = "npm run architecture-picture";

/** The service's layers, top to bottom, each with what its boxes are. */
const LAYERS = [
  { id: "composition", title: "composition: src/server/*.ts and listen/ compose baton serve", split: true },
  { id: "surfaces", title: "surfaces/: HTTP and MCP surfaces, http/ their shared kit", split: true },
  { id: "domain", title: "domain/: the rules", split: true },
  { id: "adapters", title: "adapters/: drivers and protocol adapters behind ports", split: true },
  { id: "store", title: "store/: the two engines and the migrations", split: false },
  { id: "primitives", title: "primitives/: ids, credential hashes, sealing, the instance", split: false },
];
const LAYER_IDS = new Set(LAYERS.map((layer) => layer.id));
/** The rule whose `from` names the pure core and the sandbox-side runtime: those folders are drawn as one group. */
const CORE_RULE = "sandbox-runtime-reaches-the-service-only-through-the-transport";
/** Boxes per row inside a group, so a group of twenty folders is a block rather than a column. */
const ROW = 5;

/**
 * Where a cruised file goes in the picture: its box (`id`, `label`), the `group` the box is drawn in, and the
 * `unit` its arrows start or end at: a layer, the pure core, or (outside the service) the box itself. Undefined
 * for what is not ours (node_modules, node: modules).
 */
export function placeOf(path, corePattern) {
  const parts = path.split("/");
  if (parts[0] === "runner") return outside("runner", "runner/");
  if (parts[0] !== "src" || parts.length < 2) return undefined;
  const entry = (name, isFile) => (isFile ? name : `${name}/`);
  if (parts[1] === "server" && parts.length > 2) {
    const top = parts[2];
    if (parts.length === 3 || top === "listen")
      return inLayer("composition", top, entry(top, parts.length === 3));
    if (!LAYER_IDS.has(top)) return outside(`server/${top}`, `${top}/`, "unlayered");
    if (!LAYERS.find((layer) => layer.id === top).split) return inLayer(top, top, `${top}/`);
    return inLayer(top, parts[3], entry(parts[3], parts.length === 4));
  }
  const name = parts[1];
  // src/'s own files (errors.ts, log.ts, version.ts) sit with the pure core: every folder imports them.
  const inCore = parts.length === 2 || corePattern?.test(`src/${name}/`) === true;
  if (inCore)
    return { id: `src/${name}`, label: entry(name, parts.length === 2), group: "core", unit: "core" };
  return outside(`src/${name}`, `src/${name}/`);
}

function outside(id, label, group = "outside") {
  return { id, label, group, unit: id };
}

function inLayer(layer, name, label) {
  return { id: `${layer}/${name}`, label, group: layer, unit: layer };
}

/** A mermaid id: letters, digits and `_` only, and never a keyword (`end`), so every id gets a prefix. */
function mermaidId(kind, name) {
  return `${kind}_${name.replace(/[^A-Za-z0-9]/g, "_")}`;
}

function unitId(unit) {
  if (LAYER_IDS.has(unit)) return mermaidId("layer", unit);
  if (unit === "core") return "group_core";
  return mermaidId("box", unit);
}

const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The arrows between units, from every import between them: `broken` holds the names of the rules some import
 * breaks. An arrow that breaks no rule is left out when other such arrows already lead the same way
 * (composition → store is there through the layers between), taken in sorted order, so what reaches what stays
 * as drawn; an arrow that breaks a rule is always drawn.
 */
export function arrowsOf(modules, corePattern) {
  const boxes = new Map();
  const arrows = new Map();
  for (const module of modules) {
    const from = placeOf(module.source, corePattern);
    if (from === undefined) continue;
    boxes.set(from.id, from);
    for (const dependency of module.dependencies) {
      const to = placeOf(dependency.resolved, corePattern);
      if (to === undefined || to.unit === from.unit) continue;
      boxes.set(to.id, to);
      const key = `${unitId(from.unit)} ${unitId(to.unit)}`;
      const arrow = arrows.get(key) ?? { from: unitId(from.unit), to: unitId(to.unit), broken: new Set() };
      if (dependency.valid === false) for (const rule of dependency.rules ?? []) arrow.broken.add(rule.name);
      arrows.set(key, arrow);
    }
  }
  const sorted = [...arrows.keys()].sort(byText).map((key) => arrows.get(key));
  const kept = new Set(sorted.filter((arrow) => arrow.broken.size === 0));
  for (const arrow of [...kept]) {
    kept.delete(arrow);
    if (!leadsTo(kept, arrow.from, arrow.to)) kept.add(arrow);
  }
  return {
    boxes: [...boxes.values()].sort((a, b) => byText(a.id, b.id)),
    arrows: sorted.filter((arrow) => arrow.broken.size > 0 || kept.has(arrow)),
  };
}

function leadsTo(arrows, from, to) {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    const at = queue.shift();
    for (const arrow of arrows) {
      if (arrow.from !== at || seen.has(arrow.to)) continue;
      if (arrow.to === to) return true;
      seen.add(arrow.to);
      queue.push(arrow.to);
    }
  }
  return false;
}

/**
 * The picture for cruised modules (dependency-cruiser's `modules`: `source`, and `dependencies` with `resolved`,
 * `valid` and the `rules` an invalid one breaks), as the mermaid block that goes between the markers.
 */
export function renderPicture(modules, corePattern) {
  const { boxes, arrows } = arrowsOf(modules, corePattern);
  const group = (name) => {
    // Boxes outside the service are rounded.
    const [open, close] = name === "outside" || name === "core" ? ['("', '")'] : ['["', '"]'];
    const members = boxes
      .filter((candidate) => candidate.group === name)
      .map((candidate) => `${mermaidId("box", candidate.id)}${open}${candidate.label}${close}`);
    if (name === "outside") return members; // each on its own: an invisible link would rank them
    const rows = [];
    for (let at = 0; at < members.length; at += ROW) rows.push(members.slice(at, at + ROW).join(" ~~~ "));
    return rows;
  };
  // A group's rows run left to right inside it, whatever the picture's direction.
  const subgraph = (id, title, lines, indent) => {
    if (lines.length === 0) return [];
    const pad = " ".repeat(indent);
    const body = ["direction LR", ...lines].map((line) => `${pad}  ${line}`);
    return [`${pad}subgraph ${id}["${title}"]`, ...body, `${pad}end`];
  };
  const layers = LAYERS.flatMap((layer) =>
    subgraph(mermaidId("layer", layer.id), layer.title, group(layer.id), 2),
  );
  const lines = [
    "flowchart TB",
    ...group("outside").map((line) => `  ${line}`),
    ...layers,
    ...subgraph("group_unlayered", "src/server/ folders in no layer: give each one", group("unlayered"), 2),
    ...subgraph("group_core", "src/: the pure core and the shared wires", group("core"), 2),
    ...arrows.map(({ from, to, broken }) =>
      broken.size === 0
        ? `  ${from} --> ${to}`
        : `  ${from} -.->|"breaks ${[...broken].sort(byText).join(", ")}"| ${to}`,
    ),
  ];
  return ["```mermaid", ...lines, "```"].join("\n");
}

/** Cruises `root`'s src/ and runner/ with its own dependency-cruiser configuration; resolves to the modules. */
export async function cruiseModules(root) {
  const options = await extractDepcruiseOptions(join(root, ".dependency-cruiser.cjs"));
  const tsConfigFile = options.tsConfig?.fileName;
  const tsConfig = tsConfigFile === undefined ? undefined : extractTSConfig(join(root, tsConfigFile));
  const inputs = ["src", "runner"].filter((folder) => existsSync(join(root, folder)));
  const result = await cruise(inputs, { ...options, baseDir: root, validate: true }, {}, { tsConfig });
  const coreRule = options.ruleSet?.forbidden?.find((rule) => rule.name === CORE_RULE);
  const corePath = coreRule?.from?.path;
  return {
    modules: result.output.modules,
    corePattern: typeof corePath === "string" ? new RegExp(corePath) : undefined,
  };
}

/** The text between the doc's markers, or undefined when it has not both, in order. */
export function blockOf(doc) {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END, begin);
  if (begin < 0 || end < 0) return undefined;
  return doc.slice(begin + BEGIN.length, end);
}

export function withBlock(doc, picture) {
  const begin = doc.indexOf(BEGIN) + BEGIN.length;
  return `${doc.slice(0, begin)}\n${picture}\n${doc.slice(doc.indexOf(END, begin))}`;
}

/** Rewrites (or with `check`, compares) root's doc; resolves to the exit code, having printed why. */
export async function run({ root, check }) {
  const docPath = join(root, DOC);
  const shown = relative(process.cwd(), docPath).startsWith("..")
    ? docPath
    : relative(process.cwd(), docPath);
  const doc = readFileSync(docPath, "utf8");
  if (blockOf(doc) === undefined) {
    console.error(
      `${shown}: no layer picture block (${BEGIN} … ${END}); add the two markers and run ${COMMAND}`,
    );
    return 1;
  }
  const { modules, corePattern } = await cruiseModules(root);
  const updated = withBlock(doc, renderPicture(modules, corePattern));
  if (updated === doc) {
    console.log(`${shown}: the layer picture is up to date`);
    return 0;
  }
  if (check) {
    console.error(
      `${shown}: the layer picture is stale (the code draws another); run ${COMMAND} and commit the doc`,
    );
    return 1;
  }
  writeFileSync(docPath, updated);
  console.log(`${shown}: the layer picture was redrawn`);
  return 0;
}

if (process.argv[1] === import.meta.filename) {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf("--root");
  const unknown = args.filter(
    (arg, i) => arg !== "--check" && arg !== "--root" && (rootAt < 0 || i !== rootAt + 1),
  );
  if (unknown.length > 0 || (rootAt >= 0 && args[rootAt + 1] === undefined)) {
    console.error("usage: node scripts/architecture-picture.mjs [--check] [--root DIR]");
    process.exit(2);
  }
  const root = resolve(rootAt >= 0 ? args[rootAt + 1] : join(import.meta.dirname, ".."));
  process.exitCode = await run({ root, check: args.includes("--check") });
}
