// A canary secret printed plainly, base64-encoded, URL-encoded, split across two writes and inside a URL's
// userinfo never appears on stdout, in the evidence file or in the runner's stderr, under Node 20 and 22.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, NODES, nodeVersionOf, removeSandboxes, runRunner } from "./sandbox.js";

afterEach(() => {
  removeSandboxes();
});

const SCRIPT = `
echo "plain: $APP_SECRET"
echo "base64: $(printf %s "$APP_SECRET" | base64)"
echo "base64 with newline: $(echo "$APP_SECRET" | base64)"
echo "base64 offset: $(printf 'x%s' "$APP_SECRET" | base64)"
echo "url: $APP_SECRET_URL"
printf 'split: %s' "\${APP_SECRET:0:9}"
sleep 0.3
printf '%s\\n' "\${APP_SECRET:9}"
echo "remote: https://deploy:$APP_SECRET@git.example.com/acme/api.git" >&2
echo "turn token: $BATON_TURN_TOKEN"
echo "pattern only: ghp_$GH_BODY"
`;

function forms(secret: string): string[] {
  const b64 = (text: string) => Buffer.from(text).toString("base64");
  return [
    secret,
    encodeURIComponent(secret),
    b64(secret).slice(0, -4),
    b64(`${secret}\n`).slice(0, -4),
    b64(`x${secret}`).slice(4, -4),
    secret.slice(6, 18),
  ];
}

describe.each(NODES)("runner canaries under %s", (name, node) => {
  it("no form of a canary reaches stdout, the evidence file or stderr", async () => {
    const secret = `cAnAry/${randomBytes(12).toString("hex")}+x=`;
    const turnToken = `btn_${randomBytes(20).toString("hex")}`;
    const ghBody = randomBytes(18).toString("hex").slice(0, 36);
    const sandbox = makeSandbox({ script: SCRIPT, secretNames: ["APP_SECRET"] });
    const run = await runRunner(sandbox, {
      node,
      env: {
        APP_SECRET: secret,
        APP_SECRET_URL: encodeURIComponent(secret),
        BATON_TURN_TOKEN: turnToken,
        GH_BODY: ghBody,
      },
    });
    expect(run.exitCode).toBe(0);
    expect(run.record.runtime.node).toBe(nodeVersionOf(node));
    const artefacts = [run.stdout, run.stderr, run.fileText];
    for (const file of readdirSync(join(sandbox.home, ".baton", "evidence"))) {
      artefacts.push(readFileSync(join(sandbox.home, ".baton", "evidence", file), "utf8"));
    }
    for (const artefact of artefacts) {
      for (const form of [...forms(secret), turnToken, ghBody]) expect(artefact).not.toContain(form);
    }
    const text = run.record.output.head;
    expect(text).toContain("plain: [REDACTED:APP_SECRET]");
    expect(text).toContain("url: [REDACTED:APP_SECRET]");
    expect(text).toContain("split: [REDACTED:APP_SECRET]");
    expect(text).toContain("remote: https://deploy:[REDACTED:APP_SECRET]@git.example.com/acme/api.git");
    expect(text).toContain("turn token: [REDACTED:BATON_TURN_TOKEN]");
    expect(text).toContain("pattern only: [REDACTED:github_token]");
    expect(run.record.redactions.APP_SECRET).toBeGreaterThanOrEqual(7);
  });

  it("a token nobody named, printed base64-encoded, and a DEPLOY_TOKEN only the agent's shell exported, never survive", async () => {
    const ghToken = `ghp_${randomBytes(18).toString("hex").slice(0, 36)}`;
    const deployToken = `dpl_${randomBytes(16).toString("hex")}`;
    const script = `
printf '%s\\n' "export GITHUB_TOKEN=${ghToken}" | base64
printf '%s' "${ghToken}" | base64 | tr '+/' '-_'
echo "deploying with $DEPLOY_TOKEN"
echo "encoded: $(printf %s "$DEPLOY_TOKEN" | base64)"
`;
    // environment.sh lists no secret: DEPLOY_TOKEN is known only by its name and value.
    const sandbox = makeSandbox({ script });
    const run = await runRunner(sandbox, { node, env: { DEPLOY_TOKEN: deployToken } });
    expect(run.exitCode).toBe(0);
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    const canaries = [ghToken, ghToken.slice(4, 20), deployToken, b64(deployToken).slice(0, -4)];
    canaries.push(b64(`export GITHUB_TOKEN=${ghToken}`).slice(8, 40), b64(ghToken).slice(0, 24));
    for (const artefact of [run.stdout, run.stderr, run.fileText]) {
      for (const canary of canaries) expect(artefact).not.toContain(canary);
    }
    expect(run.record.output.head).toContain("deploying with [REDACTED:DEPLOY_TOKEN]");
    expect(run.record.redactions).toEqual({ github_token: 2, DEPLOY_TOKEN: 2 });
  });

  it("runs under this Node version and reports it", async () => {
    const sandbox = makeSandbox({ script: "echo ok\n" });
    const run = await runRunner(sandbox, { node });
    expect(run.exitCode).toBe(0);
    expect(run.record.runtime.node).toBe(nodeVersionOf(node));
    expect(run.record.runtime.node).toMatch(new RegExp(`^v${name.split(" ")[1]}\\.`));
  });
});
