// Issue 11 point 6: environment.sh carries the proxy (both cases, with the lease), NO_PROXY for loopback and the
// trust bundle for every tool that reads one. Sourced in real bash and dash.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderEnvironmentFile } from "../../../src/envfile/index.js";
import { SHELLS, sourceAndReadEnv } from "../../helpers/shell.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "proxy-envfile-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const overlay = {
  revision: 1,
  repositories: [
    {
      repository: "acme/api",
      repositoryId: "repo_api",
      variables: [
        {
          name: "HTTPS_PROXY",
          assigned: "HTTPS_PROXY",
          value: "http://elsewhere",
          source: "sandbox.env" as const,
        },
      ],
    },
  ],
};
const settings = {
  proxyUrl: "http://10.0.0.1:3128",
  lease: "btl_a/b+c=d@e:f",
  caBundleFile: "/home/agent/.baton/ca-bundle.pem",
  proxyCaFile: "/home/agent/.baton/proxy-ca.pem",
};

describe.each(SHELLS)("sourced in %s", (shell) => {
  it("exports the proxy with the lease (percent-encoded), NO_PROXY and the CA variables; they win", async () => {
    const file = join(dir, `env-${shell}.sh`);
    await writeFile(file, renderEnvironmentFile(overlay, settings));
    const env = sourceAndReadEnv(shell, file, dir);
    const proxy = "http://baton:btl_a%2Fb%2Bc%3Dd%40e%3Af@10.0.0.1:3128";
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"])
      expect(env.get(name)).toBe(proxy);
    expect(decodeURIComponent(new URL(proxy).password)).toBe(settings.lease);
    for (const name of ["NO_PROXY", "no_proxy"]) expect(env.get(name)).toBe("localhost,127.0.0.1,::1");
    for (const name of [
      "SSL_CERT_FILE",
      "REQUESTS_CA_BUNDLE",
      "CURL_CA_BUNDLE",
      "GIT_SSL_CAINFO",
      "PIP_CERT",
    ]) {
      expect(env.get(name)).toBe(settings.caBundleFile);
    }
    expect(env.get("NODE_EXTRA_CA_CERTS")).toBe(settings.proxyCaFile);
  });
});

it("without a proxy the file has no proxy block", () => {
  expect(renderEnvironmentFile(overlay)).not.toContain("egress proxy");
});
