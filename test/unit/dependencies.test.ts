// What ships: the packages the shipped code imports (src/ and the runner) are exactly package.json's
// `dependencies` (plus `peerDependencies`, which the user installs, e.g. testcontainers for baton/testing). A package only a benchmark or a test uses (shell-quote, the benchmark's baseline) is a
// devDependency, and a runtime dependency nothing imports any more (undici, once the CLI moved to node:http)
// is dropped rather than installed for every user (issue 10, F.25). Read from the source.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** `zod` from "zod/mini", `@hono/zod-openapi` from "@hono/zod-openapi/x"; null for node: and relative paths. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith(".") || specifier.startsWith("node:") || specifier.startsWith("/")) return null;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)"([@a-z0-9][\w@./:-]*)"/g;

const shipped = [join(PROJECT_ROOT, "src"), join(PROJECT_ROOT, "runner", "src")].flatMap(sourceFiles);
const imported = new Set(
  shipped.flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(IMPORT)].map((m) => packageOf(m[1]!)).filter((p) => p !== null),
  ),
);
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const installed = { ...manifest.peerDependencies, ...manifest.dependencies };

describe("runtime dependencies are exactly what the shipped code imports", () => {
  it("finds the shipped code's imports", () => {
    expect(shipped.length).toBeGreaterThan(50);
    expect(imported).toContain("zod");
  });

  it("every package the shipped code imports is a runtime (or peer) dependency", () => {
    expect([...imported].filter((name) => !(name in installed)).sort()).toEqual([]);
  });

  it("every runtime dependency is imported by the shipped code (a benchmark's baseline is a devDependency)", () => {
    expect(Object.keys(manifest.dependencies).filter((name) => !imported.has(name))).toEqual([]);
    expect(Object.keys(manifest.devDependencies)).toContain("shell-quote");
  });
});
