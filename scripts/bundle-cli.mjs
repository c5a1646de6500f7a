// Bundles the `baton` CLI over tsc's output (esbuild). A sandbox command's time is mostly Node starting and
// loading code, so the CLI loads a handful of files instead of about 150 modules, and only what it runs:
//
//   dist/src/cli/bin.js                 the entry (replaces tsc's bin.js): --version, then main.cjs
//   dist/src/bundle/main.cjs            the command tree, flags and exit codes of every command
//   dist/src/bundle/commander.cjs       commander, one copy shared by main and the commands
//   dist/src/bundle/log.cjs             pino's logger, loaded only when BATON_LOG_LEVEL asks for logs
//   dist/src/bundle/<group>-<name>.cjs  one command with its domain code and zod (tree-shaken: no locales)
//
// The bundles behind bin.js are CommonJS, loaded with require(): an ES module importing a Node built-in goes
// through a facade that reads every export (`import "node:http"` cost about 30 ms of CPU, `node:process` 3 ms),
// and require() skips the ES module loader altogether. import.meta.url is defined per bundle, and bundles sit as
// deep as tsc's modules (dist/src/<folder>/), so paths made from it mean the same.
//
// Only our code and the packages in BUNDLED are bundled; any other package stays a runtime require() from
// node_modules, and src/server/ and src/proxy/ (long-running, loaded by `baton serve`, `baton admin` and
// `baton proxy`) are tsc's output, loaded with import().
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { build } from "esbuild";
import ts from "typescript";

/**
 * Packages bundled into the CLI, with everything they import: pure JavaScript on a command's path. execa is
 * bundled because it is an ES module only, which a CommonJS bundle could require() only from Node 22.12 on.
 */
const BUNDLED = new Set(["zod", "p-retry", "execa"]);

/**
 * Server-side modules a command runs in-process and then exits (src path → bundle name), bundled whole with the
 * packages they use. `baton env test` starts a throwaway `baton serve`, `baton proxy` and a sandbox driver: loaded
 * as tsc's output that was about 600 ms of CPU in Node's ES module loader (resolving, reading package.json files,
 * lexing CommonJS exports), about 150 ms as one bundle. The long-running services stay tsc's output.
 */
const SERVICE_BUNDLES = {
  "server/env-test.ts": "env-test-service",
  // `baton env test --serve`: only the admin client and env test's result over HTTP, so it loads no service code.
  "server/env-test-remote.ts": "env-test-remote",
};

/**
 * Service modules the client commands share as wire constants (paths, headers, limits, statuses): plain data
 * with no imports of their own, bundled into the commands that read them rather than loaded from the server's
 * tree, so one file spells the API's paths and the client loads no server code.
 */
const SHARED_WITH_CLIENT = new Set([
  "server/surfaces/api/wire.ts",
  "server/domain/limits.ts",
  "server/domain/tasks/status-names.ts",
]);

export async function bundleCli(root) {
  const src = join(root, "src");
  const outdir = join(root, "dist", "src");
  const bundleDir = join(outdir, "bundle");
  rmSync(bundleDir, { recursive: true, force: true });
  const commands = listCommandModules(join(src, "cli", "commands"));

  const common = {
    bundle: true,
    platform: "node",
    target: "node22",
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    // import.meta means nothing in a CommonJS bundle unless defined (import.meta.url is, below): fail the build.
    logOverride: { "empty-import-meta": "error" },
  };
  const commonJs = {
    ...common,
    format: "cjs",
    outExtension: { ".js": ".cjs" },
    define: { "import.meta.url": "__batonModuleUrl" },
    banner: { js: 'const __batonModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  };

  // zod schemas are built when their module loads, and a command's bundle holds many it never uses (env activate
  // gets every capability and admin schema of transport/wire.ts). Building a schema has no side effect, so each
  // top-level `const XSchema = z.…` / `= OtherSchema.…` is wrapped in an IIFE marked pure: esbuild then drops the
  // schemas a bundle never reads. The source stays as written; only the bundled copy changes.
  const pureSchemas = {
    name: "baton-pure-schemas",
    setup(esbuild) {
      esbuild.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => ({
        contents: markSchemasPure(readFileSync(args.path, "utf8"), args.path),
        loader: "ts",
      }));
    },
  };

  const layout = {
    name: "baton-cli-layout",
    setup(esbuild) {
      // The stand-ins' require() of a bundle stays a require() at run time.
      esbuild.onResolve({ filter: /.*/, namespace: "baton-bundle" }, (args) => ({
        path: args.path,
        external: true,
      }));
      esbuild.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") return undefined;
        const spec = args.path;
        if (spec === "commander") {
          return args.importer.endsWith("commander.entry.js")
            ? undefined
            : { path: "./commander.cjs", external: true };
        }
        if (!spec.startsWith(".") && !spec.startsWith("/")) {
          if (spec.startsWith("node:")) return { path: spec, external: true };
          // What a bundled package imports is bundled with it; any other package stays a runtime require().
          if (args.importer.includes("/node_modules/")) return undefined;
          const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
          return BUNDLED.has(name) ? undefined : { path: spec, external: true };
        }
        const target = join(args.resolveDir, spec).replace(/\.js$/, ".ts");
        // `baton env test`'s service side is one bundle of its own (see SERVICE_BUNDLES).
        const service = SERVICE_BUNDLES[relative(src, target)];
        if (args.kind === "dynamic-import" && service)
          return { path: `./${service}.cjs`, namespace: "baton-bundle" };
        if (SHARED_WITH_CLIENT.has(relative(src, target))) return undefined;
        // The long-running services (`baton serve`, `baton proxy`) stay tsc's output, loaded with import().
        for (const service of ["server", "proxy"]) {
          if (target.startsWith(`${join(src, service)}/`)) {
            // From dist/src/cli/ and dist/src/bundle/ alike, ../<service>/ is tsc's dist/src/<service>/.
            return {
              path: `../${service}/${relative(join(src, service), target).replace(/\.ts$/, ".js")}`,
              external: true,
            };
          }
        }
        if (args.kind === "dynamic-import") {
          const fromBin = args.importer === join(src, "cli", "bin.ts");
          const bundle =
            target === join(src, "cli", "main.ts")
              ? "main.cjs"
              : target === join(src, "log.ts")
                ? "log.cjs"
                : commands.find((c) => c.source === target)?.name.concat(".cjs");
          // import() of another bundle becomes a require() of it (see above), through a one-line stand-in.
          if (bundle)
            return { path: fromBin ? `../bundle/${bundle}` : `./${bundle}`, namespace: "baton-bundle" };
        }
        return undefined;
      });
      esbuild.onLoad({ filter: /.*/, namespace: "baton-bundle" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
    },
  };

  const results = await Promise.all([
    build({
      ...common,
      format: "esm",
      entryPoints: { "cli/bin": join(src, "cli", "bin.ts") },
      outdir,
      // The stand-in for main.cjs needs a real require() inside this ES module.
      banner: {
        js: 'import { createRequire as __batonCreateRequire } from "node:module"; const require = __batonCreateRequire(import.meta.url);',
      },
      plugins: [layout, pureSchemas],
    }),
    build({
      ...commonJs,
      entryPoints: {
        "bundle/main": join(src, "cli", "main.ts"),
        "bundle/log": join(src, "log.ts"),
        ...Object.fromEntries(commands.map((c) => [`bundle/${c.name}`, c.source])),
      },
      outdir,
      plugins: [layout, pureSchemas],
    }),
    // The service side of a short-lived command, with every package it loads: one file read through require()
    // instead of some 900 ES modules and CommonJS packages resolved one by one.
    build({
      ...commonJs,
      entryPoints: Object.fromEntries(
        Object.entries(SERVICE_BUNDLES).map(([source, name]) => [`bundle/${name}`, join(src, source)]),
      ),
      outdir,
      // Native add-ons (optional ones: ssh2's crypto binding, cpu-features) stay runtime require()s that may fail.
      // Octokit stays a runtime import() too: only the GitHub adapter's first call loads it, and the throwaway
      // service talks to the local code host, so bundling it would only make every run parse it.
      external: ["*.node", "cpu-features", "@octokit/*"],
    }),
    build({
      ...commonJs,
      stdin: { contents: 'export * from "commander";', resolveDir: root, sourcefile: "commander.entry.js" },
      outfile: join(bundleDir, "commander.cjs"),
      plugins: [layout],
    }),
  ]);
  // The service bundles are not on a sandbox command's path (the server's modules import zod whole).
  const serviceOutputs = new Set(Object.values(SERVICE_BUNDLES).map((name) => `bundle/${name}.cjs`));
  const bundled = results.flatMap((r) =>
    Object.entries(r.metafile.outputs)
      .filter(([output]) => ![...serviceOutputs].some((name) => output.endsWith(name)))
      .flatMap(([, output]) => Object.keys(output.inputs)),
  );
  // `import { z } from "zod"` pulls every locale into a bundle; modules on the CLI's path use `import * as z`.
  const locales = new Set(bundled.filter((input) => input.includes("zod/v4/locales/")));
  if (locales.size > 1) {
    throw new Error(
      `the CLI bundles carry ${locales.size} zod locale files; use \`import * as z from "zod"\``,
    );
  }
}

/** Every module under src/cli/commands that declares a command, named <group>-<name> after its path. */
function listCommandModules(dir, prefix = []) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listCommandModules(path, [...prefix, entry.name]);
    if (!entry.name.endsWith(".ts") || !/^export function declare\(/m.test(readFileSync(path, "utf8")))
      return [];
    return [{ source: path, name: [...prefix, entry.name.replace(/\.ts$/, "")].join("-") }];
  });
}

/** Wraps each top-level schema initializer (`z.…` or `<Name>Schema.…`) in `/* @__PURE__ *\/ (() => …)()`. */
export function markSchemasPure(source, fileName) {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const spans = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const))
      continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || !ts.isCallExpression(init)) continue;
      const root = rootName(init);
      if (root === "z" || root?.endsWith("Schema")) spans.push([init.getStart(file), init.getEnd()]);
    }
  }
  let out = source;
  for (const [start, end] of spans.reverse()) {
    out = `${out.slice(0, start)}/* @__PURE__ */ (() => ${out.slice(start, end)})()${out.slice(end)}`;
  }
  return out;
}

/** The identifier a call chain starts from: `z` for `z.string().min(1)`. */
function rootName(node) {
  let current = node;
  while (ts.isCallExpression(current) || ts.isPropertyAccessExpression(current)) current = current.expression;
  return ts.isIdentifier(current) ? current.text : undefined;
}
