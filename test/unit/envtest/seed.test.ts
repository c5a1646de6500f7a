import { describe, expect, it } from "vitest";
import { buildLocalSeed, detectEnvironment, localRepositoryName } from "../../../src/envtest/seed.js";
import { SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";

describe("the seed baton env test makes from a checkout", () => {
  it.each([
    [
      ["Dockerfile", "AGENTS.md", "scripts/start.sh", "start.sh"],
      {
        dockerfilePath: "Dockerfile",
        agentInstructionsPath: "AGENTS.md",
        startupScriptPath: "scripts/start.sh",
      },
    ],
    [["start.sh"], { startupScriptPath: "start.sh" }],
    [
      [".baton/Dockerfile", ".baton/start.sh"],
      { dockerfilePath: ".baton/Dockerfile", startupScriptPath: ".baton/start.sh" },
    ],
    [[], {}],
  ] as [string[], object][])("files %j give the environment %j", (files, expected) => {
    expect(detectEnvironment((path) => files.includes(path))).toEqual(expected);
  });

  it.each([
    ["acme-api", "local/acme-api"],
    ["My Repo!", "local/my-repo-"],
    ["...", "local/checkout"],
  ])("a folder named %j is the repository %j", (folder, repository) => {
    expect(localRepositoryName(folder)).toBe(repository);
  });

  it("is a seed document the service accepts", () => {
    const seed = buildLocalSeed({
      workspaceId: "ws_local",
      repository: "acme/api",
      environment: { startupScriptPath: "start.sh" },
    });
    expect(SeedDocumentSchema.parse(seed).workspaces[0]!.repositories[0]!.repository).toBe("acme/api");
  });

  it("carries the readiness checks into the repository's environment, and none gives an empty list", () => {
    const checks = [
      { kind: "http" as const, url: "http://127.0.0.1:3000/health", deadlineSeconds: 2 },
      { kind: "command" as const, command: "test -e /tmp/ready", deadlineSeconds: 2 },
    ];
    const withChecks = SeedDocumentSchema.parse(
      buildLocalSeed({
        workspaceId: "ws_local",
        repository: "acme/api",
        environment: { startupScriptPath: "start.sh", readiness: { checks } },
      }),
    );
    expect(withChecks.workspaces[0]!.repositories[0]!.environment).toMatchObject({
      startupScriptPath: "start.sh",
      readiness: { checks },
    });
    const without = SeedDocumentSchema.parse(
      buildLocalSeed({ workspaceId: "ws_local", repository: "acme/api", environment: {} }),
    );
    expect(without.workspaces[0]!.repositories[0]!.environment!.readiness).toEqual({ checks: [] });
  });
});
