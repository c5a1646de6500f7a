import { describe, expect, it } from "vitest";
import { OverlaySchema } from "../../../src/envfile/overlay.js";
import { buildOverlay, variableMapping } from "../../../src/server/domain/operations/build-overlay.js";
import { formatSecretPlaceholder, SECRET_PLACEHOLDER_PATTERN } from "../../../src/transport/wire.js";

const secretId = `sec_${"ab".repeat(16)}`;
const repos = [
  {
    repositoryId: "r1",
    repository: "acme/api",
    sandboxEnv: [{ name: "PORT", value: "3000" }],
    secrets: [{ id: secretId, name: "TOKEN" }],
  },
  {
    repositoryId: "r2",
    repository: "acme/web",
    sandboxEnv: [
      { name: "PORT", value: "4000" },
      { name: "NEW", value: "x" },
    ],
    secrets: [],
  },
];
const ledger = [
  { repositoryId: "r1", repository: "acme/api", variable: "PORT", assigned: "PORT", status: "live" as const },
  {
    repositoryId: "r1",
    repository: "acme/api",
    variable: "TOKEN",
    assigned: "TOKEN",
    status: "live" as const,
  },
  {
    repositoryId: "r2",
    repository: "acme/web",
    variable: "PORT",
    assigned: "REPO_WEB__PORT",
    status: "live" as const,
  },
  {
    repositoryId: "r9",
    repository: "acme/gone",
    variable: "OLD",
    assigned: "OLD",
    status: "reserved" as const,
  },
];

describe("buildOverlay", () => {
  it("holds every live assignment with its value, secrets as placeholders only", () => {
    const overlay = OverlaySchema.parse(buildOverlay(4, repos, ledger));
    expect(overlay.revision).toBe(4);
    expect(overlay.repositories[0]!.variables).toEqual([
      { name: "PORT", assigned: "PORT", value: "3000", source: "sandbox.env" },
      { name: "TOKEN", assigned: "TOKEN", value: formatSecretPlaceholder(secretId), source: "secret" },
    ]);
    expect(formatSecretPlaceholder(secretId)).toMatch(new RegExp(`^${SECRET_PLACEHOLDER_PATTERN.source}$`));
  });

  it("a variable without a live assignment (added after the last activation) waits for the next activation", () => {
    const overlay = buildOverlay(1, repos, ledger);
    expect(overlay.repositories[1]!.variables.map((v) => v.name)).toEqual(["PORT"]);
  });

  it("the mapping lists names and sources, never values", () => {
    const mapping = variableMapping(buildOverlay(1, repos, ledger));
    expect(mapping).toContainEqual({
      repository: "acme/web",
      name: "PORT",
      assigned: "REPO_WEB__PORT",
      source: "sandbox.env",
    });
    expect(JSON.stringify(mapping)).not.toContain("3000");
    expect(JSON.stringify(mapping)).not.toContain(secretId);
  });
});
