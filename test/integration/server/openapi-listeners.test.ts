// Issue 35 A.10: each listener's `/openapi.json` describes its own routes. Before, the public listener's document
// listed the admin API, the sandbox transport and the proxy's internal routes to anyone who asked. In process
// (each listener's own handler, as its socket would serve it); the store is a real SQLite file.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp, ephemeralSecretBox, type ServerApp } from "../../../src/server/index.js";
import { buildOpenApiDocument } from "../../../src/server/openapi-document.js";
import type { Store } from "../../../src/server/store/store.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { openTestStore } from "../../helpers/test-store.js";

let dir: string;
let db: Store;
let app: ServerApp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "openapi-listeners-"));
  db = await openTestStore(dir);
  app = createServerApp({
    db,
    logger: pino({ level: "silent" }),
    secretBox: ephemeralSecretBox(),
    capability: { serviceUrl: "http://127.0.0.1:1" },
    tasks: { workRoot: join(dir, "work") },
  });
  await app.start();
});

afterAll(async () => {
  await app?.stop();
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

async function pathsOf(
  listener: "public" | "sandbox" | "admin",
): Promise<{ title: string; paths: string[] }> {
  const answer = await app.listeners[listener].request("/openapi.json");
  expect(answer.status).toBe(200);
  const document = (await answer.json()) as { info: { title: string }; paths: Record<string, unknown> };
  return { title: document.info.title, paths: Object.keys(document.paths) };
}

describe("each listener describes its own routes (issue 35 A.10)", () => {
  it("the public document has the API, MCP, webhooks and pages' routes, and no admin, sandbox or internal one", async () => {
    const { title, paths } = await pathsOf("public");
    expect(title).toContain("public listener");
    expect(paths).toContain("/v1/me");
    expect(paths).toContain("/v1/mcp");
    expect(paths).toContain("/healthz");
    expect(paths.filter((path) => /^\/(admin|ops|internal)\//.test(path))).toEqual([]);
  });

  it("the admin listener's document is the operator's: the admin API, internal and sandbox routes, no public API", async () => {
    const { title, paths } = await pathsOf("admin");
    expect(title).toContain("admin and sandbox listeners");
    expect(paths.some((path) => path.startsWith("/admin/v1/"))).toBe(true);
    expect(paths.some((path) => path.startsWith("/ops/v1/"))).toBe(true);
    expect(paths.filter((path) => path.startsWith("/v1/"))).toEqual([]);
  });

  it("the sandbox listener serves no document: a box reaches only its routes", async () => {
    expect((await app.listeners.sandbox.request("/openapi.json")).status).toBe(404);
  });

  it("together they describe every route of openapi/baton-ops.json", async () => {
    const served = new Set(
      (await Promise.all((["public", "admin"] as const).map(pathsOf))).flatMap((d) => d.paths),
    );
    const every = Object.keys((buildOpenApiDocument() as { paths: Record<string, unknown> }).paths);
    expect(every.filter((path) => !served.has(path))).toEqual([]);
  });

  // Issue 35 B.16's lint, applied to what each listener serves (not only to the whole document): a subset may lose
  // a schema its operations name, or keep a component nothing uses. Redocly's own CLI with the repository's rules;
  // the only problems allowed are the two .redocly.lint-ignore.yaml documents (no 4xx on /healthz, /openapi.json).
  it.each(["public", "admin"] as const)(
    "the %s listener's document passes Redocly's recommended rules",
    async (listener) => {
      const document = await (await app.listeners[listener].request("/openapi.json")).json();
      const file = join(dir, `served-${listener}.json`);
      await writeFile(file, JSON.stringify(document));
      const redocly = join(PROJECT_ROOT, "node_modules", ".bin", "redocly");
      const { stdout } = await promisify(execFile)(
        redocly,
        ["lint", file, "--format=json", "--config", join(PROJECT_ROOT, "redocly.yaml")],
        {
          cwd: dir,
          env: {
            ...process.env,
            REDOCLY_TELEMETRY: "off",
            REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
            NO_COLOR: "1",
          },
          maxBuffer: 16 * 1024 * 1024,
        },
      ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
      const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as {
        problems: { ruleId: string; location: { pointer: string }[] }[];
      };
      const unexpected = report.problems.filter(
        (problem) =>
          !(
            problem.ruleId === "operation-4xx-response" &&
            ["#/paths/~1healthz/get/responses", "#/paths/~1openapi.json/get/responses"].includes(
              problem.location[0]?.pointer ?? "",
            )
          ),
      );
      expect(unexpected).toEqual([]);
      expect(Object.keys((document as { paths: object }).paths).length).toBeGreaterThan(5);
    },
    60_000,
  );
});
