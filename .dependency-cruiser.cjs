// The layers of Baton's code, checked by dependency-cruiser in `npm run check` (docs/architecture.md draws them).
// Each rule below is one "never": an import its `from` side must not make. What no rule forbids is allowed, so the
// allowed directions are the complement: `src/cli` may import everything; the service imports downwards only:
//
//   composition (src/server/*.ts, listen/)  →  surfaces/  →  domain/  →  adapters/  →  store/  →  primitives/
//
// and every layer may import the pure core (src/naming, src/envfile, src/config, …) and the shared wires
// (src/transport, src/audit). A rule's name is what a violation prints: keep names stable, as docs link them.

/** Folders of src/ that run inside a sandbox or in the proxy and reach the service only over HTTP. */
const SANDBOX_RUNTIME =
  "^src/(activation|agent-tools|capability|capability-client|config|credentials|disclosure|dockerfile|envfile|evidence|format|handoff|naming|net|safefs|throttle|transport|audit|envtest)/";

const SERVER = "^src/server/";
/** The composition: `baton serve`'s files at the top of src/server and its listeners. */
const COMPOSITION = "^src/server/([^/]+[.]ts$|listen/)";
const SURFACES = "^src/server/surfaces/";
const DOMAIN = "^src/server/domain/";
const ADAPTERS = "^src/server/adapters/";
const STORE = "^src/server/store/";
const PRIMITIVES = "^src/server/primitives/";
/** The public API's wire constants, the one service file the client commands share. */
const API_WIRE = "^src/server/surfaces/api/wire[.]ts$";
/** The domain's names the API's wire shares with the client: error codes, limits, task status names. */
const VOCABULARY = "^src/server/domain/(errors|limits|tasks/status-names)[.]ts$";

module.exports = {
  forbidden: [
    {
      name: "runner-imports-only-the-pure-core",
      severity: "error",
      comment:
        "The startup runner is bundled into one dependency-free file that runs in any sandbox image " +
        "(docs/agents.md). It shares the evidence format, the sanitiser, the environment file reader and the " +
        "safe writes with the CLI (one definition each), and nothing else of src/: no service, client or transport.",
      from: { path: "^runner/" },
      to: {
        path: "^src/",
        pathNot: "^src/(evidence|envfile|safefs|config|credentials|handoff|naming|errors[.]ts$)",
      },
    },
    {
      name: "only-the-cli-imports-the-cli",
      severity: "error",
      comment:
        "src/cli prints and picks exit codes; everything else returns values (CONVENTIONS: only src/cli/main.ts " +
        "exits). Nothing below it may import it.",
      from: { pathNot: "^src/cli/" },
      to: { path: "^src/cli/" },
    },
    {
      name: "proxy-never-imports-the-service",
      severity: "error",
      comment:
        "`baton proxy` runs on its own machine beside the service and learns leases over the admin listener's " +
        "internal routes: what both need lives in src/proxy/lease/wire.ts or src/audit.",
      from: { path: "^src/proxy/" },
      to: { path: SERVER },
    },
    {
      name: "sandbox-runtime-reaches-the-service-only-through-the-transport",
      severity: "error",
      comment:
        "The sandbox-side runtime and the pure core (naming, envfile, evidence, capability's pure half, config, " +
        "dockerfile, …) run in a box: they talk to the service over the operations transport (src/transport), " +
        "never by importing it, and they never print (src/cli does).",
      from: { path: SANDBOX_RUNTIME },
      to: { path: `${SERVER}|^src/(client|proxy|testing)/` },
    },
    {
      name: "client-knows-only-the-api-wire",
      severity: "error",
      comment:
        "The client commands know the public API's wire (paths, headers, error codes, statuses), never the " +
        "engine: its bundles load no service code (test/unit/cli/bundles.test.ts).",
      from: { path: "^src/client/" },
      to: { path: SERVER, pathNot: API_WIRE },
    },
    {
      name: "api-wire-imports-only-vocabulary",
      severity: "error",
      comment:
        "The client bundles src/server/surfaces/api/wire.ts, so it may import only the domain's vocabulary " +
        "(error codes, limits, status names: constants that import nothing), never a rule.",
      from: { path: API_WIRE },
      to: { path: SERVER, pathNot: VOCABULARY },
    },
    {
      name: "vocabulary-imports-nothing",
      severity: "error",
      comment:
        "The vocabulary the API's wire re-exports stays constants only, so the client's bundle stays small.",
      from: { path: VOCABULARY },
      to: { path: "^src/" },
    },
    {
      name: "testing-uses-only-sandbox-drivers",
      severity: "error",
      comment:
        "`baton/testing` (a repository's own CI) runs a box through the sandbox drivers and the `baton` binary; " +
        "it composes no service in-process.",
      from: { path: "^src/testing/" },
      to: { path: SERVER, pathNot: "^src/server/adapters/sandboxes/" },
    },
    {
      name: "surfaces-never-import-the-composition",
      severity: "error",
      comment:
        "A surface declares the dependencies it uses (its own deps type); serve.ts and app.ts hand them over. " +
        "A surface importing the composition would take everything.",
      from: { path: SURFACES },
      to: { path: COMPOSITION },
    },
    {
      name: "rules-never-import-surfaces-or-composition",
      severity: "error",
      comment:
        "The domain is surface-neutral (DESIGN 'Domain errors are surface-neutral'): it throws domain errors " +
        "that each surface maps, and takes the ports it uses as arguments.",
      from: { path: DOMAIN },
      to: { path: `${SURFACES}|${COMPOSITION}` },
    },
    {
      name: "adapters-never-import-rules-or-surfaces",
      severity: "error",
      comment:
        "Drivers and protocol adapters implement a port (the `port.ts` beside them, which the domain calls) and " +
        "call no rule: a rule an adapter needs is passed in, and a primitive both need lives in store/ or primitives/.",
      from: { path: ADAPTERS },
      to: { path: `${DOMAIN}|${SURFACES}|${COMPOSITION}` },
    },
    {
      name: "store-never-imports-rules",
      severity: "error",
      comment:
        "The store's engines and migrations know tables, not rules: the same migrations run on both engines " +
        "and under `baton admin migrate-store` with no service around them.",
      from: { path: STORE },
      to: { path: `${DOMAIN}|${ADAPTERS}|${SURFACES}|${COMPOSITION}` },
    },
    {
      name: "primitives-import-nothing-of-the-service",
      severity: "error",
      comment:
        "ids, credential hashes, sealing and the instance's identity sit below every layer so that any may use " +
        "them; they import no other service module.",
      from: { path: PRIMITIVES },
      to: { path: SERVER, pathNot: PRIMITIVES },
    },
    {
      name: "no-cycle-between-folders",
      severity: "error",
      comment:
        "Folders are ordered by who imports whom; a folder that imports one that imports it back (through any " +
        "others) has no place in that order. Cut the cycle: move the shared piece down, or pass a port in.",
      scope: "folder",
      from: { path: "^(src|runner)/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "[.]d[.]ts$" },
    // Type-only imports count: a type from a surface in the domain is still a domain that knows the surface.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.check.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
    reporterOptions: {
      // docs/architecture.md's picture: one box per layer folder (scripts/architecture-picture.mjs).
      archi: {
        collapsePattern:
          "^src/server/(surfaces|domain|adapters)/[^/]+|^src/server/(store|primitives|listen)|^src/server/[^/]+[.]ts$|^src/[^/]+|^runner",
      },
    },
  },
};
