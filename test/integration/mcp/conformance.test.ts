// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against a real `baton serve`, in
// both eras, with the baseline conformance-baseline.yml: every entry there names a scenario or check that cannot
// apply to a tools-only service and says why. The runner fails on any unexpected failure and on any baselined
// entry that now passes (stale), so the baseline cannot drift. The runner sends no Authorization header: it goes
// through a loopback forwarder that adds real personal access tokens (test/helpers/bearer-forwarder.ts).
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_PATH } from "../../../src/server/surfaces/mcp/wire.js";
import { ADMIN_PATHS, CreateTokenResponseSchema } from "../../../src/transport/wire.js";
import { type BearerForwarder, startBearerForwarder } from "../../helpers/bearer-forwarder.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { FIXTURES, type ServeHandle, startServe } from "../../helpers/serve.js";

const CONFORMANCE_BIN = join(PROJECT_ROOT, "node_modules", ".bin", "conformance");
const BASELINE = join(import.meta.dirname, "conformance-baseline.yml");
/** Enough tokens that no run meets the 120-calls-a-minute budget (each serves 100 calls). */
const TOKENS = 12;

/** The summary line the runner prints last, e.g. "Total: 99 passed, 70 failed". */
const totalLine = (stdout: string): string | undefined =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("Total:"))
    .at(-1);

describe("MCP conformance (the official suite) against baton serve", () => {
  let serve: ServeHandle;
  let forwarder: BearerForwarder;
  beforeAll(async () => {
    serve = await startServe({ seed: join(FIXTURES, "seeds", "api.json") });
    const tokens: string[] = [];
    for (let i = 0; i < TOKENS; i++) {
      const made = await serve.admin(ADMIN_PATHS.tokens, {
        email: "owner@acme.test",
        name: `conformance ${i}`,
        lifetimeDays: 30,
      });
      tokens.push(CreateTokenResponseSchema.parse(await made.json()).token);
    }
    forwarder = await startBearerForwarder(serve.url, tokens);
  }, 90_000);
  afterAll(async () => {
    await forwarder?.close();
    await serve?.stop();
  });

  it.each(["2026-07-28", "2025-11-25"])(
    "passes every scenario that applies at --requirements %s, with no stale baseline entry",
    async (era) => {
      const run = await execa(
        CONFORMANCE_BIN,
        [
          "server",
          "--url",
          `${forwarder.url}${MCP_PATH}`,
          "--requirements",
          era,
          "--expected-failures",
          BASELINE,
        ],
        { reject: false, all: true, timeout: 240_000 },
      );
      const summary = totalLine(run.stdout);
      // The last result line, for the docs (docs/mcp.md prints it).
      console.log(`conformance --requirements ${era}: ${summary} (exit ${run.exitCode})`);
      if (run.exitCode !== 0) console.log(run.all?.split("\n").slice(-60).join("\n"));
      expect(summary).toBeDefined();
      expect(run.exitCode).toBe(0);
    },
    300_000,
  );
});
