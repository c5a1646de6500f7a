// `baton serve`'s code-host and tracker settings: which flags go together, secrets read from files (never shown
// in an error or the start-up description), and the defaults that keep the local adapters.
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  describeIntegrations,
  LOCAL_INTEGRATIONS,
  loadIntegrationSettings,
} from "../../../../../src/server/adapters/integrations/settings.js";
import { parseServeFlags } from "../../../../../src/server/serve-options.js";

const dir = mkdtempSync(join(tmpdir(), "baton-integrations-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
const CANARY = "canary-webhook-secret-5f0e1c9a-never-print";
const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs8",
  format: "pem",
}) as string;
const keyFile = file("app.pem", pem);
const secretFile = file("webhook-secret", `${CANARY}\n`);
const clientSecretFile = file("client-secret", `${CANARY}-client\n`);
/** The App's five flags (the client id and secret let the install callback check whose installation it is). */
const APP = {
  codehostAppId: "123",
  codehostAppSlug: "acme-baton",
  codehostPrivateKeyFile: keyFile,
  codehostClientId: "Iv1.0123456789abcdef",
  codehostClientSecretFile: clientSecretFile,
};

const base = { host: "127.0.0.1", port: 0 };

describe("integration flags", () => {
  it.each([
    [
      { codehostAppId: "123" },
      "--codehost-app-id, --codehost-app-slug, --codehost-private-key-file, --codehost-client-id and --codehost-client-secret-file go together",
    ],
    [
      { codehostAppId: "123", codehostAppSlug: "acme-baton", codehostPrivateKeyFile: keyFile },
      "the client id and secret to check that the installation is the installer's own",
    ],
    [{ ...APP, codehostClientId: "has space" }, "--codehost-client-id must be the App's client id"],
    [{ codehostAppSlug: "acme-baton", codehostPrivateKeyFile: keyFile }, "go together"],
    [{ trackerClientId: "abc" }, "--tracker-client-id and --tracker-client-secret-file go together"],
    [{ trackerClientSecretFile: secretFile }, "go together"],
    [{ codehostAppId: "12a" }, "--codehost-app-id must be the App's numeric id"],
    [{ codehostApiUrl: "ftp://x" }, "--codehost-api-url must be a https:// or http:// URL"],
    [{ publicUrl: "not a url" }, "--public-url must be a http:// or https:// URL"],
    [{ codehostAgentLabel: "" }, "--codehost-agent-label must be a label name"],
  ])("%j is refused naming the flag", (flags, message) => {
    expect(() => parseServeFlags({ ...base, ...flags })).toThrow(message);
  });

  it("accepts the App's five flags and the OAuth application's two together", () => {
    const flags = parseServeFlags({
      ...base,
      ...APP,
      trackerClientId: "client_1",
      trackerClientSecretFile: secretFile,
    });
    expect(flags.codehostAppId).toBe("123");
  });
});

describe("loadIntegrationSettings", () => {
  it("without flags, the local adapters and no webhook receivers", async () => {
    expect(await loadIntegrationSettings({})).toEqual(LOCAL_INTEGRATIONS);
  });

  it("reads secrets from files, trims the newline, fills the platforms' defaults", async () => {
    const settings = await loadIntegrationSettings({
      ...APP,
      codehostWebhookSecretFile: secretFile,
      codehostApiUrl: "https://ghe.example.test/api/v3/",
    });
    expect(settings.codehost.app).toMatchObject({
      appId: "123",
      appSlug: "acme-baton",
      apiUrl: "https://ghe.example.test/api/v3",
      webUrl: "https://github.com",
      clientId: "Iv1.0123456789abcdef",
      clientSecret: `${CANARY}-client`,
    });
    expect(settings.codehost.webhookSecret).toBe(CANARY);
    expect(settings.codehost.agentLabel).toBe("baton");
    expect(settings.tracker.oauth).toBeUndefined();
  });

  it.each([
    [
      { codehostWebhookSecretFile: join(dir, "missing") },
      "--codehost-webhook-secret-file",
      "cannot be read (ENOENT)",
    ],
    [{ trackerWebhookSecretFile: file("empty", "\n") }, "--tracker-webhook-secret-file", "is empty"],
    [
      { ...APP, codehostClientSecretFile: file("empty-client", "\n") },
      "--codehost-client-secret-file",
      "is empty",
    ],
    [
      { ...APP, codehostPrivateKeyFile: file("not-a-key.pem", CANARY) },
      "--codehost-private-key-file",
      "holds no RSA private key",
    ],
  ])("a bad file is named by its flag, never shown (%#)", async (flags, flag, why) => {
    const error = await loadIntegrationSettings(flags).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(flag);
    expect((error as Error).message).toContain(why);
    expect((error as Error).message).not.toContain(CANARY);
  });

  it("the start-up description names what is configured, never a secret", async () => {
    const settings = await loadIntegrationSettings({
      ...APP,
      codehostWebhookSecretFile: secretFile,
      trackerClientId: "client_1",
      trackerClientSecretFile: secretFile,
    });
    const described = JSON.stringify(describeIntegrations(settings));
    expect(described).toContain("app 123");
    expect(described).not.toContain(CANARY);
    expect(described).not.toContain("PRIVATE KEY");
  });
});
