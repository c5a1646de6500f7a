// When the sandbox has an egress proxy (BATON_PROXY_URL), activation fetches the proxy's CA certificate from the
// proxy itself, writes it and a trust bundle (system CAs plus the proxy's CA) into ~/.baton, and returns the
// settings environment.sh carries. Without BATON_PROXY_URL nothing changes.
import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import type { SandboxPaths } from "../config/sandbox.js";
import type { ProxySettings } from "../envfile/index.js";
import { PROXY_URL_ENV } from "../envfile/render-proxy-settings.js";
import { ConfigError, ServiceError } from "../errors.js";
import { callHttp } from "../net/http-call.js";
import { writeFileAtomicSync } from "../safefs/index.js";

export { PROXY_URL_ENV };

const CA_PATH = "/ca.pem";
const SYSTEM_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/cert.pem",
];

export const proxyTrustPaths = (paths: Pick<SandboxPaths, "batonDir">) => ({
  proxyCaFile: join(paths.batonDir, "proxy-ca.pem"),
  caBundleFile: join(paths.batonDir, "ca-bundle.pem"),
});

async function systemBundle(): Promise<string> {
  for (const file of SYSTEM_BUNDLES) {
    const text = await readFile(file, "utf8").catch(() => null);
    if (text?.includes("BEGIN CERTIFICATE")) return text.endsWith("\n") ? text : `${text}\n`;
  }
  return `${rootCertificates.join("\n")}\n`;
}

async function fetchProxyCa(proxyUrl: string): Promise<string> {
  let response: { status: number; text: string };
  try {
    response = await callHttp(new URL(CA_PATH, proxyUrl).toString(), { timeoutMs: 10_000 });
  } catch (error) {
    throw new ServiceError(
      "network",
      `cannot reach the egress proxy at ${proxyUrl}; check ${PROXY_URL_ENV}`,
      {
        cause: error,
      },
    );
  }
  const text = response.text;
  if (response.status !== 200) {
    throw new ServiceError("service_error", `the egress proxy answered ${response.status} for its CA`);
  }
  try {
    new X509Certificate(text);
  } catch (error) {
    throw new ServiceError("service_error", "the egress proxy's CA is not a PEM certificate", {
      cause: error,
    });
  }
  return text.endsWith("\n") ? text : `${text}\n`;
}

export function proxyConfigured(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env[PROXY_URL_ENV]);
}

export async function prepareProxySettings(input: {
  env: NodeJS.ProcessEnv;
  paths: Pick<SandboxPaths, "home" | "batonDir">;
}): Promise<ProxySettings | null> {
  const proxyUrl = input.env[PROXY_URL_ENV];
  if (!proxyUrl) return null;
  let parsed: URL;
  try {
    parsed = new URL(proxyUrl);
  } catch (error) {
    throw new ConfigError(`${PROXY_URL_ENV} is not a URL (http://host:port)`, { cause: error });
  }
  if (parsed.protocol !== "http:" || parsed.username || parsed.password) {
    throw new ConfigError(`${PROXY_URL_ENV} must be http://host:port without credentials`);
  }
  const lease = input.env.BATON_SANDBOX_LEASE;
  if (!lease) throw new ConfigError("BATON_SANDBOX_LEASE is not set; the proxy knows the sandbox by it");
  const ca = await fetchProxyCa(proxyUrl);
  const files = proxyTrustPaths(input.paths);
  writeFileAtomicSync(input.paths.batonDir, files.proxyCaFile, ca, { mode: 0o600 });
  writeFileAtomicSync(input.paths.batonDir, files.caBundleFile, `${await systemBundle()}${ca}`, {
    mode: 0o600,
  });
  return { proxyUrl: parsed.origin, lease, ...files };
}
