// Compiles src/ to dist/ (tsc), bundles the `baton` CLI (esbuild, below) and the dependency-free startup runner.
// `--allow-type-errors` (used by the test setup) still emits when tsc reports type errors: `npm run check`
// is the gate for those, and a type error in one module should not hide every other test's result.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const allowTypeErrors = process.argv.includes("--allow-type-errors");

try {
  execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(root, "tsconfig.json")], {
    stdio: "inherit",
    cwd: root,
  });
} catch (error) {
  if (!allowTypeErrors) throw error;
  console.error(
    "build: tsc reported type errors; emitted anyway for the tests (npm run check fails on them)",
  );
}

await bundleCli();

const runnerBuild = join(root, "runner", "build.mjs");
if (existsSync(runnerBuild)) {
  execFileSync(process.execPath, [runnerBuild], { stdio: "inherit", cwd: root });
}

// tsc does not keep the executable bit; `npx baton` and direct execution need it.
chmodSync(join(root, "dist", "src", "cli", "bin.js"), 0o755);

/**
 * The CLI's start-up is most of a sandbox command's time, so `dist/src/cli/bin.js` is a bundle (it replaces tsc's
 * bin.js): one file per command with its dependencies tree-shaken (zod without its 64 locale files) instead of
 * about 150 modules. Each command is a chunk loaded only when it runs. Chunks sit in dist/src/bundle/, as deep as
 * the tsc modules, so paths made from import.meta.url mean the same in both. `baton serve` and `baton admin` load
 * the service from tsc's dist/src/server/ (long-running; no start-up to save), and pino stays a package (loaded
 * only when BATON_LOG_LEVEL asks for logs).
 */
async function bundleCli() {
  const outdir = join(root, "dist", "src");
  rmSync(join(outdir, "bundle"), { recursive: true, force: true });
  const serverDir = join(root, "src", "server");
  const result = await build({
    entryPoints: { "cli/bin": join(root, "src", "cli", "bin.ts") },
    outdir,
    chunkNames: "bundle/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    external: ["pino"],
    // CommonJS dependencies inside an ES module bundle need a real require().
    banner: {
      js: 'import { createRequire as __batonCreateRequire } from "node:module"; const require = __batonCreateRequire(import.meta.url);',
    },
    plugins: [
      {
        name: "service-from-tsc-output",
        setup(esbuild) {
          esbuild.onResolve({ filter: /\/server\// }, (args) => {
            const target = join(args.resolveDir, args.path);
            if (!target.startsWith(`${serverDir}/`)) return undefined;
            // From dist/src/cli/ and dist/src/bundle/ alike, ../server/ is tsc's dist/src/server/.
            return { path: `../server/${relative(serverDir, target)}`, external: true };
          });
        },
      },
    ],
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
  });
  const bundled = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
  const locales = bundled.filter((input) => input.includes("zod/v4/locales/"));
  // `import { z } from "zod"` pulls every locale into the bundle; modules on the CLI's path use `import * as z`.
  if (locales.length > 1) {
    throw new Error(
      `the CLI bundle carries ${locales.length} zod locale files; use \`import * as z from "zod"\``,
    );
  }
}
