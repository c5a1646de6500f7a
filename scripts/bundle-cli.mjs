// Bundles the `baton` CLI over tsc's output (esbuild). A sandbox command's time is mostly Node starting and
// loading code, so the CLI loads a handful of files instead of about 150 modules, and only what it runs:
//
//   dist/src/cli/bin.js              the entry (replaces tsc's bin.js): --version, then ../bundle/main.js
//   dist/src/bundle/main.js          the command tree, flags and exit codes of every command
//   dist/src/bundle/commander.js     commander, one copy shared by main and the commands
//   dist/src/bundle/log.js           pino's logger, loaded only when BATON_LOG_LEVEL asks for logs
//   dist/src/bundle/<group>-<name>.js  one command with its domain code and zod (tree-shaken: no locales)
//
// Bundles sit as deep as tsc's modules (dist/src/<folder>/), so paths made from import.meta.url mean the same.
// Only our code and the packages in BUNDLED are bundled; any other package stays a runtime import from
// node_modules, and src/server/ (long-running, loaded by `baton serve` and `baton admin`) is tsc's output.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { build } from "esbuild";

/** Packages bundled into the CLI: small, pure ES modules on the hot path. */
const BUNDLED = new Set(["zod", "p-retry", "is-network-error"]);

export async function bundleCli(root) {
  const src = join(root, "src");
  const outdir = join(root, "dist", "src");
  const bundleDir = join(outdir, "bundle");
  rmSync(bundleDir, { recursive: true, force: true });
  const commands = listCommandModules(join(src, "cli", "commands"));

  const common = {
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    // CommonJS dependencies inside an ES module bundle need a real require().
    banner: {
      js: 'import { createRequire as __batonCreateRequire } from "node:module"; const require = __batonCreateRequire(import.meta.url);',
    },
  };
  const layout = {
    name: "baton-cli-layout",
    setup(esbuild) {
      esbuild.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") return undefined;
        const spec = args.path;
        if (spec === "commander") {
          return args.importer.endsWith("commander.entry.js") ? undefined : external(args, "commander.js");
        }
        if (!spec.startsWith(".") && !spec.startsWith("/")) {
          const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
          return spec.startsWith("node:") || !BUNDLED.has(name) ? { path: spec, external: true } : undefined;
        }
        const target = join(args.resolveDir, spec).replace(/\.js$/, ".ts");
        if (target.startsWith(`${join(src, "server")}/`)) {
          return {
            path: `../server/${relative(join(src, "server"), target).replace(/\.ts$/, ".js")}`,
            external: true,
          };
        }
        if (args.kind === "dynamic-import") {
          if (target === join(src, "cli", "main.ts")) return external(args, "main.js");
          if (target === join(src, "log.ts")) return external(args, "log.js");
          const command = commands.find((c) => c.source === target);
          if (command) return external(args, `${command.name}.js`);
        }
        return undefined;
      });
    },
  };
  /** An import of another bundle, relative to the importing bundle's folder (cli/ or bundle/). */
  function external(args, file) {
    const fromBin = args.importer.endsWith(join("cli", "bin.ts"));
    return { path: fromBin ? `../bundle/${file}` : `./${file}`, external: true };
  }

  const results = await Promise.all([
    build({ ...common, entryPoints: { "cli/bin": join(src, "cli", "bin.ts") }, outdir, plugins: [layout] }),
    build({
      ...common,
      entryPoints: {
        "bundle/main": join(src, "cli", "main.ts"),
        "bundle/log": join(src, "log.ts"),
        ...Object.fromEntries(commands.map((c) => [`bundle/${c.name}`, c.source])),
      },
      outdir,
      plugins: [layout],
    }),
    build({
      ...common,
      stdin: { contents: 'export * from "commander";', resolveDir: root, sourcefile: "commander.entry.js" },
      outfile: join(bundleDir, "commander.js"),
      plugins: [layout],
    }),
  ]);
  const bundled = results.flatMap((r) =>
    Object.values(r.metafile.outputs).flatMap((output) => Object.keys(output.inputs)),
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
