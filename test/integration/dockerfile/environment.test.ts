// Two repositories' Dockerfile ENV merged into ~/.baton/dockerfile-environment.sh, read back by real bash.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./helpers.js";

let sandbox: Sandbox;
afterEach(async () => {
  await sandbox?.cleanup();
});

describe("persisting ENV across repositories", () => {
  it("the same value is exported once; a conflicting name is scoped per repository and disclosed", async () => {
    sandbox = await createSandbox("acme/one");
    const two = join(sandbox.home, "checkouts", "acme", "two");
    await mkdir(two, { recursive: true });
    await sandbox.writeDockerfile("FROM x\nENV SHARED=same PORT=8080\nENV ONLY_ONE='it''s'\n");
    await writeFile(join(two, "Dockerfile"), 'FROM y\nENV SHARED=same PORT="9090 tcp"\n');
    const first = await sandbox.baton(["dockerfile", "apply", "acme/one", "--file", "Dockerfile"]);
    expect(first.exitCode).toBe(0);
    const second = await sandbox.baton([
      "dockerfile",
      "apply",
      "acme/two",
      "--file",
      join(two, "Dockerfile"),
      "--checkout",
      two,
      "--json",
    ]);
    expect(second.exitCode).toBe(0);
    const doc = JSON.parse(second.stdout);
    expect(doc.environment.variables).toEqual([
      { name: "SHARED", assigned: "SHARED", shared: true },
      { name: "PORT", assigned: "REPO_TWO__PORT", shared: false },
    ]);
    expect(doc.environment.conflicts).toEqual([
      {
        name: "PORT",
        assignments: [
          { repository: "acme/one", assigned: "PORT" },
          { repository: "acme/two", assigned: "REPO_TWO__PORT" },
        ],
      },
    ]);
    const file = join(sandbox.home, ".baton", "dockerfile-environment.sh");
    const text = await (await import("node:fs/promises")).readFile(file, "utf8");
    expect(text.match(/^export SHARED=/gm)).toHaveLength(1);
    for (const shell of ["bash", "sh"]) {
      const { stdout } = await execa(shell, [
        "-c",
        `. "${file}" && printf '%s|%s|%s|%s' "$SHARED" "$PORT" "$REPO_TWO__PORT" "$ONLY_ONE"`,
      ]);
      expect(stdout).toBe("same|8080|9090 tcp|its");
    }
    const human = await sandbox.baton([
      "dockerfile",
      "apply",
      "acme/two",
      "--file",
      join(two, "Dockerfile"),
      "--checkout",
      two,
    ]);
    expect(human.stdout).toContain(
      "PORT conflicts with another repository's value: exported as REPO_TWO__PORT",
    );
  });
});
