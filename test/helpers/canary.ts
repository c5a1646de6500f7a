// Collects everything a test saw (CLI output, service log, files under a HOME) to check canary secrets against.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";

/** Every text file below `dir`, concatenated (files written by baton are small). */
export async function readTree(dir: string): Promise<string> {
  let out = "";
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    out += await readFile(join(entry.parentPath, entry.name), "utf8").catch(() => "");
  }
  return out;
}

export function expectNoCanary(texts: readonly string[], canaries: readonly string[]): void {
  const all = texts.join("\n");
  expect(all.length).toBeGreaterThan(0);
  for (const canary of canaries) expect(all).not.toContain(canary);
}
