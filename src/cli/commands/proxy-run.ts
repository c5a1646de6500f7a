// The printing side of `baton proxy` and its subcommands: one listening line, the check's decision, the CA.
import { X509Certificate } from "node:crypto";
import { ServiceError, UsageError } from "../../errors.js";
import { createLogger } from "../../log.js";
import { SERVICE_LOG_LEVEL } from "../../log-level.js";
import type { CommandResult } from "../context.js";
import { type CliIo, writeJson, writeLine } from "../io.js";

const DRAIN_MS = 10_000;

export async function runProxy(
  options: {
    host: string;
    port: number;
    serveUrl?: string;
    config?: string;
    stateDir?: string;
    auditFile?: string;
    allowSmtp?: boolean;
    json?: boolean;
  },
  io: CliIo,
): Promise<CommandResult> {
  const { defaultProxyStateDir, startProxyService } = await import("../../proxy/service.js");
  const { PROXY_TOKEN_ENV } = await import("../../proxy/lease/wire.js");
  if (!options.serveUrl)
    throw new UsageError(
      "--serve-url is required: the admin listener of the baton serve that issues the leases (its adminUrl)",
    );
  const logger = createLogger(io.env, "baton-proxy", SERVICE_LOG_LEVEL);
  const stopRequested = onceSignalled();
  const service = await startProxyService({
    host: options.host,
    port: options.port,
    serveUrl: options.serveUrl,
    token: io.env[PROXY_TOKEN_ENV] || undefined,
    config: options.config,
    stateDir: options.stateDir ?? defaultProxyStateDir(io.env),
    auditFile: options.auditFile,
    allowSmtp: options.allowSmtp === true,
    logger,
  });
  const onHup = () => {
    service.reloadCa().then(
      () => logger.info("CA reloaded"),
      (error: unknown) => logger.error({ err: String(error) }, "CA reload failed; the old CA stays in use"),
    );
  };
  process.on("SIGHUP", onHup);
  if (options.json === true)
    writeLine(io.stdout, JSON.stringify({ url: service.url, caFile: service.caFile }));
  else writeLine(io.stdout, `baton proxy: listening on ${service.url}`);
  logger.info({ url: service.url, caCreated: service.caCreated }, "listening");
  await stopRequested;
  process.off("SIGHUP", onHup);
  logger.info({ open: service.proxy.openConnections() }, "draining");
  const { ended } = await service.stop(DRAIN_MS);
  logger.info({ ended }, "stopped");
  return undefined;
}

export async function runProxyCheck(
  target: string,
  options: { config?: string; method?: string; allowSmtp?: boolean; json?: boolean },
  io: CliIo,
): Promise<CommandResult> {
  const { loadProxyConfig } = await import("../../proxy/load-config.js");
  const { checkProxyPolicy } = await import("../../proxy/check.js");
  const loaded = await loadProxyConfig(options.config);
  // The same --allow-smtp as `baton proxy`, so an operator can check what the flag opens.
  const config = options.allowSmtp === true ? { ...loaded, allowSmtp: true } : loaded;
  const result = await checkProxyPolicy(config, target, options.method?.toUpperCase() ?? null);
  if (options.json === true) {
    writeJson(io.stdout, result);
  } else {
    const where = result.host.includes(":")
      ? `[${result.host}]:${result.port}`
      : `${result.host}:${result.port}`;
    writeLine(io.stdout, `${result.decision} ${where}: ${result.reason} (rule ${result.rule})`);
    for (const a of result.addresses) {
      writeLine(io.stdout, `  ${a.address}  ${a.range ?? "?"}  ${a.allowed ? "allow" : "deny"}  ${a.rule}`);
    }
    if (result.error)
      writeLine(io.stdout, `  a request would get ${result.status} Baton-Proxy-Error: ${result.error}`);
  }
  return result.decision === "allow" ? undefined : { failed: "policy_denied" };
}

function describeCertificate(pem: string) {
  const cert = new X509Certificate(pem);
  return {
    certificate: pem,
    subject: cert.subject,
    notAfter: new Date(cert.validTo).toISOString(),
    sha256: cert.fingerprint256,
  };
}

export async function runProxyCa(
  options: { stateDir?: string; from?: string; json?: boolean },
  io: CliIo,
): Promise<CommandResult> {
  let pem: string;
  if (options.from) {
    const { PROXY_SELF_PATHS } = await import("../../proxy/wire.js");
    const { callHttp } = await import("../../net/http-call.js");
    let response: { status: number; text: string };
    try {
      response = await callHttp(new URL(PROXY_SELF_PATHS.ca, options.from).toString(), { timeoutMs: 10_000 });
    } catch (error) {
      throw new ServiceError("network", `cannot reach the proxy at ${options.from}; check --from`, {
        cause: error,
      });
    }
    if (response.status !== 200) {
      throw new ServiceError("service_error", `the proxy at ${options.from} answered ${response.status}`);
    }
    pem = response.text;
  } else {
    const { defaultProxyStateDir } = await import("../../proxy/service.js");
    const { readCaCertificate } = await import("../../proxy/ca/authority.js");
    pem = await readCaCertificate(options.stateDir ?? defaultProxyStateDir(io.env));
  }
  if (options.json === true) writeJson(io.stdout, describeCertificate(pem));
  else io.stdout.write(pem);
  return undefined;
}

export async function runProxyRotateCa(
  options: { stateDir?: string; json?: boolean },
  io: CliIo,
): Promise<CommandResult> {
  const { defaultProxyStateDir } = await import("../../proxy/service.js");
  const { rotateCa } = await import("../../proxy/ca/authority.js");
  const dir = options.stateDir ?? defaultProxyStateDir(io.env);
  const files = await rotateCa(dir);
  const details = describeCertificate(files.certPem);
  if (options.json === true) {
    writeJson(io.stdout, { subject: details.subject, notAfter: details.notAfter, sha256: details.sha256 });
  } else {
    writeLine(io.stdout, `New proxy CA in ${dir} (sha256 ${details.sha256}).`);
    writeLine(
      io.stdout,
      "Next: kill -HUP <pid of each baton proxy>, then rerun baton env activate in sandboxes.",
    );
  }
  return undefined;
}

function onceSignalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      resolve();
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
}
