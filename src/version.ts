import { readFileSync } from "node:fs";

/** The package version, read from package.json beside dist/ (works from src/ under vitest too). */
export function readVersion(): string {
  for (const relative of ["../../package.json", "../package.json"]) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (parsed.name === "baton" && parsed.version) return parsed.version;
    } catch {
      // try the next candidate
    }
  }
  return "0.0.0-unknown";
}
