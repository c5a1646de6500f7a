// The demo's code-host webhook: the demo plays the code host's App, signing a delivery as it would
// (`X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body>`) with the secret `baton serve` was given by file.
// The payload is the documented "issue labelled" example (fixtures/webhooks/codehost/issues-labeled.json) about
// an issue of acme/api, labelled `baton` by the workspace's owner on the installation the demo seed records.
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const DEMO_INSTALLATION = { id: "4242", account: "acme" };
export const DEMO_SENDER = "olive";

/** The demo seed: the fixture seed plus the installation its webhooks name and the owner's code-host login. */
export function demoSeed(seedFile) {
  const seed = JSON.parse(readFileSync(seedFile, "utf8"));
  const acme = seed.workspaces.find((w) => w.id === "ws_acme");
  acme.codehost = { ...acme.codehost, installation: DEMO_INSTALLATION };
  acme.members = acme.members.map((m) => (m.role === "owner" ? { ...m, codehostLogin: DEMO_SENDER } : m));
  return seed;
}

export function labelledIssuePayload(root, { repo, number, title, body }) {
  const example = JSON.parse(
    readFileSync(join(root, "fixtures", "webhooks", "codehost", "issues-labeled.json"), "utf8"),
  );
  return {
    ...example,
    issue: { ...example.issue, id: 700_000 + number, number, title, body },
    repository: { ...example.repository, name: repo.split("/")[1], full_name: repo },
    sender: { login: DEMO_SENDER, id: 501, type: "User" },
    installation: { id: Number(DEMO_INSTALLATION.id) },
  };
}

/** POSTs the payload signed as the code host's App does; returns the status and body text. */
export async function deliverSigned(serviceUrl, secret, event, payload) {
  const raw = JSON.stringify(payload);
  const signature = `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
  const response = await fetch(`${serviceUrl}/webhooks/codehost`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": signature,
    },
    body: raw,
  });
  return { status: response.status, text: await response.text() };
}
