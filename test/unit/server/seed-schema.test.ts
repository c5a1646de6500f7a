import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssuePath } from "../../../src/config/zod-error.js";
import { SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const repo = (extra: Record<string, unknown>) => ({
  workspaces: [{ id: "w", name: "W", repositories: [{ repository: "a/b", ...extra }] }],
});

describe("seed document schema", () => {
  it("keeps a safe runPath and evidencePath, and leaves them out when absent (the defaults apply)", () => {
    const parsed = SeedDocumentSchema.parse(
      repo({
        environment: {
          versionId: "v",
          runPath: "~/.baton/tools/runner.cjs",
          evidencePath: "~/.baton/evidence/b.json",
        },
      }),
    );
    expect(parsed.workspaces[0]!.repositories[0]!.environment).toMatchObject({
      runPath: "~/.baton/tools/runner.cjs",
      evidencePath: "~/.baton/evidence/b.json",
    });
    const bare = SeedDocumentSchema.parse(repo({ environment: { versionId: "v" } }));
    expect(bare.workspaces[0]!.repositories[0]!.environment).not.toHaveProperty("runPath");
    expect(bare.workspaces[0]!.repositories[0]!.environment).not.toHaveProperty("evidencePath");
  });

  it("accepts the fixture seed and fills defaults (connected, rollout off, readiness with no checks)", () => {
    const seed = SeedDocumentSchema.parse(
      JSON.parse(readFileSync(join(PROJECT_ROOT, "fixtures", "server", "seed.json"), "utf8")),
    );
    expect(seed.workspaces[0]!.repositories[1]).toMatchObject({ connected: true, repository: "acme/web" });
    expect(SeedDocumentSchema.parse({ workspaces: [{ id: "w", name: "W" }] }).workspaces[0]).toMatchObject({
      rollout: { repositoryEnvironments: false },
      members: [],
      repositories: [],
    });
  });

  it.each([
    [
      "a sandboxEnv name that is not a shell name",
      repo({ sandboxEnv: { "1X": "v" } }),
      "workspaces[0].repositories[0].sandboxEnv.1X",
    ],
    [
      "a secret with no allowed hosts",
      repo({ secrets: [{ name: "S", value: "v", allowedHosts: [] }] }),
      "workspaces[0].repositories[0].secrets[0].allowedHosts",
    ],
    [
      "a secret destination with a scheme other than http(s)",
      repo({ secrets: [{ name: "S", value: "v", allowedHosts: ["ftp://x.test"] }] }),
      "workspaces[0].repositories[0].secrets[0].allowedHosts[0]",
    ],
    [
      "a secret named like a sandboxEnv variable",
      repo({ sandboxEnv: { S: "1" }, secrets: [{ name: "S", value: "v", allowedHosts: ["x.test"] }] }),
      "workspaces[0].repositories[0].secrets[0].name",
    ],
    [
      "a value with a NUL byte",
      repo({ sandboxEnv: { S: "a\0b" } }),
      "workspaces[0].repositories[0].sandboxEnv.S",
    ],
    [
      "a secret value with a lone surrogate (it would be stored as U+FFFD)",
      repo({ secrets: [{ name: "S", value: "a\ud800b", allowedHosts: ["x.test"] }] }),
      "workspaces[0].repositories[0].secrets[0].value",
    ],
    [
      "a repository that is not owner/name",
      repo({ repository: "just-a-name" }),
      "workspaces[0].repositories[0].repository",
    ],
    [
      "an unknown readiness kind",
      repo({ environment: { versionId: "v", readiness: { checks: [{ kind: "ping" }] } } }),
      "workspaces[0].repositories[0].environment.readiness.checks[0].kind",
    ],
    ...(
      [
        ["runPath", "outside ~/.baton", "~/bin/runner.cjs"],
        ["runPath", "absolute", "/home/u/.baton/runner.cjs"],
        ["runPath", "with a '..' segment", "~/.baton/../runner.cjs"],
        ["evidencePath", "with a '..' segment deeper in", "~/.baton/evidence/../../x.json"],
        ["evidencePath", "with a backslash", "~/.baton/evidence\\x.json"],
        ["evidencePath", "with a control character", "~/.baton/evidence/x\u0007.json"],
        ["evidencePath", "that is ~/.baton/ itself", "~/.baton/"],
      ] as const
    ).map(([field, why, value]) => [
      `a ${field} ${why}`,
      repo({ environment: { versionId: "v", [field]: value } }),
      `workspaces[0].repositories[0].environment.${field}`,
    ]),
  ])("refuses %s, naming %s", (_label, input, path) => {
    const parsed = SeedDocumentSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(formatIssuePath(parsed.error!.issues[0]!.path)).toBe(path);
  });
});
