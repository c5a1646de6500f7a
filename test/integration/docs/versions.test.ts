// What the docs quote of the package itself: the version in sample output (npm's EBADENGINE warning, the sandbox
// image's tag) is package.json's, and the README's list of the packages npm warns about under an older Node is
// the lockfile's. Both drifted (issue 37 A6: 0.1.0 after the bump to 0.2.0; two packages missing).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const VERSION = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).version as string;
const README = readFileSync(join(PROJECT_ROOT, "README.md"), "utf8");

const docFiles = [
  join(PROJECT_ROOT, "README.md"),
  ...readdirSync(join(PROJECT_ROOT, "docs"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => join(entry.parentPath, entry.name)),
];

describe("the version the docs quote", () => {
  it.each(docFiles.map((path) => relative(PROJECT_ROOT, path)))(
    "%s names this version in baton@…, baton-sandbox:… and baton-….tgz samples",
    (file) => {
      const text = readFileSync(join(PROJECT_ROOT, file), "utf8");
      const quoted = [...text.matchAll(/\b(?:baton@|baton-sandbox:|baton-)(\d+\.\d+\.\d+)/g)].map(
        (m) => m[1],
      );
      expect(quoted.filter((version) => version !== VERSION)).toEqual([]);
    },
  );
});

/**
 * Whether npm warns EBADENGINE for this `engines.node` range under Node 20: when every `||` alternative starts
 * above major 20. An alternative's first number is its lowest major in every form the lockfile holds (>=N, ^N,
 * ~N, N.x, `>=A <B`, `14 >=14.17`); `*` admits any Node.
 */
function excludesNode20(range: string): boolean {
  return range.split("||").every((alternative) => {
    const first = /\d+/.exec(alternative);
    return first !== null && Number(first[0]) > 20;
  });
}

describe("README: what `npm ci` prints under an older Node", () => {
  const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { engines?: { node?: string } | string[] }>;
  };
  const warned = new Set<string>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (path === "" || !node) continue;
    if (excludesNode20(node)) warned.add(path.replace(/^.*node_modules\//, ""));
  }

  it("the sample warning names this version", () => {
    expect(README).toContain(`npm warn EBADENGINE   package: 'baton@${VERSION}',`);
  });

  it("lists every package that warns, and no other", () => {
    const list = /\(also for ([^)]*)\)/.exec(README)?.[1] ?? "";
    const listed = list.split(/,\s*|\s+and\s+/).map((name) => name.trim());
    expect(new Set(listed)).toEqual(warned);
  });
});
