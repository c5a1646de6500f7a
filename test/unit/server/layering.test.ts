// The service's domain knows no surface (DESIGN "Domain errors are surface-neutral"): no module under a domain
// folder imports a surface folder (http, api, ops, admin, members, mcp) or hono, except the surface files that
// live beside their domain, named here one by one with why. Read from the source.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const SERVER = join(PROJECT_ROOT, "src", "server");
const DOMAIN_FOLDERS = [
  "auth",
  "tasks",
  "tickets",
  "capability",
  "sandboxes",
  "operations",
  "codehost",
  "tracker",
  "secrets",
];
const SURFACE_FOLDERS = ["http", "api", "ops", "admin", "members", "mcp"];

/** Surface files inside a domain folder (paths under src/server), and why each may reach a surface. */
const SURFACE_FILES: Record<string, string> = {
  "codehost/git-http.ts": "the code host's git smart-HTTP surface: a hono sub-app of its own",
  "sandboxes/env-test.ts": "`baton env test` composes an in-process `baton serve` on a socket",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*)"([^"]+)"/g;

/** The surfaces (a folder under src/server, or a hono package) the source's imports reach, as written. */
function surfacesImported(file: string, source: string): string[] {
  return [...source.matchAll(IMPORT)].flatMap((match) => {
    const specifier = match[1]!;
    if (specifier === "hono" || specifier.startsWith("hono/") || specifier.startsWith("@hono/"))
      return [specifier];
    if (!specifier.startsWith(".")) return [];
    const target = relative(SERVER, resolve(dirname(file), specifier));
    const folder = target.split("/")[0]!;
    return SURFACE_FOLDERS.includes(folder) && target.includes("/") ? [specifier] : [];
  });
}

const domainFiles = DOMAIN_FOLDERS.flatMap((folder) => sourceFiles(join(SERVER, folder)));

describe("the domain imports no surface", () => {
  it("finds every domain folder's files, and each exempt surface file exists", () => {
    expect(domainFiles.length).toBeGreaterThan(60);
    const names = domainFiles.map((file) => relative(SERVER, file));
    for (const exempt of Object.keys(SURFACE_FILES)) expect(names).toContain(exempt);
  });

  it.each([
    ["capability/x.ts", 'import { HttpError } from "../http/http-error.js";', ["../http/http-error.js"]],
    ["auth/x.ts", 'import { apiErrorOf } from "../api/errors.js";', ["../api/errors.js"]],
    ["tasks/x.ts", 'import type { X } from "../mcp/tools.js";', ["../mcp/tools.js"]],
    ["sandboxes/drivers/x.ts", 'import { y } from "../../ops/app.js";', ["../../ops/app.js"]],
    ["tickets/x.ts", 'import type { Context } from "hono";', ["hono"]],
    ["tickets/x.ts", 'import { createMiddleware } from "hono/factory";', ["hono/factory"]],
    ["tickets/x.ts", 'import { z } from "@hono/zod-openapi";', ["@hono/zod-openapi"]],
    ["tasks/x.ts", 'import { domainError } from "../domain/errors.js";', []],
    ["tasks/x.ts", 'import { LIMITS } from "../domain/limits.js";', []],
    ["auth/x.ts", 'import { HEADERS } from "../../transport/wire.js";', []],
    ["auth/x.ts", 'import { lookUpSignInToken } from "../oauth/sign-ins.js";', []],
  ])("a domain module %s with `%s` reaches the surfaces %j", (file, source, expected) => {
    expect(surfacesImported(join(SERVER, file), source)).toEqual(expected);
  });

  it("no module under auth/ tasks/ tickets/ capability/ sandboxes/ operations/ codehost/ tracker/ secrets/ (but the surface files named) imports http/, api/, ops/, admin/, members/, mcp/ or hono", () => {
    const offending = domainFiles
      .filter((file) => !(relative(SERVER, file) in SURFACE_FILES))
      .flatMap((file) =>
        surfacesImported(file, readFileSync(file, "utf8")).map((s) => `${relative(SERVER, file)}: ${s}`),
      );
    expect(offending).toEqual([]);
  });

  it("the surface files named are what the rule would otherwise refuse (an exemption that is not needed goes)", () => {
    for (const exempt of Object.keys(SURFACE_FILES)) {
      const file = join(SERVER, exempt);
      expect(surfacesImported(file, readFileSync(file, "utf8")), exempt).not.toEqual([]);
    }
  });
});

// The store holds engines, migrations and queries and knows no rules (issue 26, point 1): nothing under store/
// imports a domain or surface folder, but the secret box's type and sealing helpers (the operator's key, which
// migration 40 needed to seal values already in the store).
const STORE_MAY_IMPORT: Record<string, string> = {
  secrets: "the SecretBox a migration seals existing values with",
};

/** The imports of a store module that reach a folder of the service other than store/ and the ones allowed. */
function ruleImports(file: string, source: string): string[] {
  return [...source.matchAll(IMPORT)].flatMap((match) => {
    const specifier = match[1]!;
    if (!specifier.startsWith(".")) return [];
    const target = relative(SERVER, resolve(dirname(file), specifier));
    const folder = target.split("/")[0]!;
    if (target.startsWith("..") || folder === "store" || !target.includes("/")) return [];
    return folder in STORE_MAY_IMPORT ? [] : [specifier];
  });
}

describe("the store knows no rules", () => {
  it("no module under store/ imports a domain or surface folder of the service (but secrets/, for sealing)", () => {
    const storeFiles = sourceFiles(join(SERVER, "store"));
    expect(storeFiles.length).toBeGreaterThan(10);
    const reached = storeFiles.flatMap((file) =>
      ruleImports(file, readFileSync(file, "utf8")).map(
        (specifier) => `${relative(SERVER, file)} -> ${specifier}`,
      ),
    );
    expect(reached).toEqual([]);
  });

  it.each([
    ['import { mergeSandboxEnv } from "../sandboxes/sandbox-env.js";', ["../sandboxes/sandbox-env.js"]],
    ['import { hashCredential } from "../auth/tokens.js";', ["../auth/tokens.js"]],
    ['import type { SecretBox } from "../secrets/secret-box.js";', []],
    ['import { statement } from "./statements.js";', []],
    ['import type { Operation } from "../../transport/wire.js";', []],
  ])("%s is caught as a rule in the store: %j", (source, expected) => {
    expect(ruleImports(join(SERVER, "store", "x.ts"), source)).toEqual(expected);
  });
});
