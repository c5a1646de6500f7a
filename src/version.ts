import { readFileSync } from "node:fs";

/**
 * The package version, from the nearest package.json named "baton" above this module: that is the project root
 * from src/ (vitest), dist/src/ (tsc) and dist/src/cli/ (the bundled CLI) alike.
 */
export function readVersion(): string {
  for (let dir = new URL("./", import.meta.url); ; dir = new URL("../", dir)) {
    try {
      const parsed = JSON.parse(readFileSync(new URL("package.json", dir), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (parsed.name === "baton" && parsed.version) return parsed.version;
    } catch {
      // not here: try the folder above
    }
    if (dir.pathname === "/") return "0.0.0-unknown";
  }
}
