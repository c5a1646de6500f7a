// Issue 24 point 4: "Agents push through the egress proxy with the installation token as a secret placeholder
// approved for the code host only, so the token never enters the box." The variables a box gets for it, checked
// as data and then by real git, which must read the header from the environment alone.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  appendGitConfig,
  CODEHOST_TOKEN_VARIABLE,
  codehostPushEnvironment,
  codehostRepoUrl,
  extraHeaderEntry,
  installationAuthorizationHeader,
} from "../../../../../src/server/adapters/codehost/push-credentials.js";
import { buildBoxEnvironment } from "../../../../../src/server/adapters/sandboxes/environment.js";

const run = promisify(execFile);
const CREDENTIAL = `sec_${"c3".repeat(16)}`;
const PLACEHOLDER = `baton-secret-${CREDENTIAL}`;
const decodeBasic = (header: string) =>
  Buffer.from(/^Authorization: Basic (.+)$/.exec(header)![1]!, "base64").toString("utf8");

describe("the installation's Basic header", () => {
  it.each([
    ["a placeholder", PLACEHOLDER],
    ["a token", "ghs_16C7e42F292c6912E7710c838347Ae178B4a"],
  ])("carries x-access-token:<%s> base64-encoded, as the code host expects", (_, value) => {
    expect(decodeBasic(installationAuthorizationHeader(value))).toBe(`x-access-token:${value}`);
  });
});

describe("git settings through GIT_CONFIG_COUNT", () => {
  it.each([
    ["https://github.com", "http.https://github.com/.extraHeader"],
    ["https://github.com/", "http.https://github.com/.extraHeader"],
    ["https://ghe.example:8443/", "http.https://ghe.example:8443/.extraHeader"],
  ])("the header for %s applies to every URL under it (%s)", (base, key) => {
    expect(extraHeaderEntry(base, "H")).toEqual([key, "H"]);
  });

  it.each([
    ["no settings yet", {}, "0"],
    [
      "one setting of the local code host",
      { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "a", GIT_CONFIG_VALUE_0: "b" },
      "1",
    ],
    ["a count that is no number", { GIT_CONFIG_COUNT: "many" }, "0"],
  ])("with %s, the new entry goes at index %s and existing ones stay", (_, env, index) => {
    const out = appendGitConfig(env, [["k", "v"]]);
    expect(out[`GIT_CONFIG_KEY_${index}`]).toBe("k");
    expect(out[`GIT_CONFIG_VALUE_${index}`]).toBe("v");
    expect(out.GIT_CONFIG_COUNT).toBe(String(Number(index) + 1));
    if ("GIT_CONFIG_KEY_0" in env && index !== "0") expect(out.GIT_CONFIG_KEY_0).toBe("a");
  });

  it("a repository's clone URL is <web url>/<owner>/<name>.git", () => {
    expect(codehostRepoUrl("https://github.com/", "acme/api")).toBe("https://github.com/acme/api.git");
  });
});

describe("the box's push variables", () => {
  const access = { credentialId: CREDENTIAL, webUrl: "https://github.com" };

  it("BATON_CODEHOST_TOKEN is the placeholder, and git sends it for the code host's web URL only", async () => {
    const env = codehostPushEnvironment(access);
    expect(env[CODEHOST_TOKEN_VARIABLE]).toBe(PLACEHOLDER);
    // Real git reads the setting from the environment, for the code host and not for another host.
    const clean = { PATH: process.env.PATH ?? "", HOME: "/nonexistent", GIT_CONFIG_NOSYSTEM: "1" };
    const get = (url: string) =>
      run("git", ["config", "--get-urlmatch", "http.extraHeader", url], { env: { ...clean, ...env } }).then(
        (r) => r.stdout.trim(),
        () => null,
      );
    expect(decodeBasic((await get("https://github.com/acme/api.git"))!)).toBe(
      `x-access-token:${PLACEHOLDER}`,
    );
    expect(await get("https://elsewhere.example/acme/api.git")).toBeNull();
  });

  it("buildBoxEnvironment adds them after sandbox.env, whose own git settings keep their indexes", () => {
    const env = buildBoxEnvironment({
      reach: { proxy: "172.18.0.1:40001", ops: "172.18.0.1:40002" },
      turnToken: "btt_turn",
      lease: "btl_lease",
      sandboxEnv: {
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "core.autocrlf",
        GIT_CONFIG_VALUE_0: "false",
        BATON_CODEHOST_TOKEN: "from sandbox.env",
      },
      secrets: [],
      codehost: access,
    });
    expect(env).toMatchObject({
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "core.autocrlf",
      GIT_CONFIG_KEY_1: "http.https://github.com/.extraHeader",
      [CODEHOST_TOKEN_VARIABLE]: PLACEHOLDER,
    });
    expect(decodeBasic(env.GIT_CONFIG_VALUE_1!)).toBe(`x-access-token:${PLACEHOLDER}`);
  });

  it("a box whose repository no installation gives has none of them", () => {
    const env = buildBoxEnvironment({
      reach: { ops: "10.0.0.1:1" },
      turnToken: "t",
      lease: "l",
      sandboxEnv: {},
      secrets: [],
    });
    expect(
      Object.keys(env).filter((n) => n.startsWith("GIT_CONFIG") || n === CODEHOST_TOKEN_VARIABLE),
    ).toEqual([]);
  });
});
