// Reads the operator's config file (JSON) once and parses it with zod; errors name the field to fix.
import { readFile } from "node:fs/promises";
import { parseOrThrow } from "../config/zod-error.js";
import { InputError } from "../errors.js";
import { createServerResolver, createSystemResolver, type NameResolver } from "./net/resolver.js";
import { tlsRootsWith } from "./net/trust.js";
import { DEFAULT_PROXY_CONFIG, type ProxyConfig, ProxyConfigSchema } from "./policy/index.js";

export async function loadProxyConfig(file: string | undefined): Promise<ProxyConfig> {
  if (file === undefined) return DEFAULT_PROXY_CONFIG;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new InputError(`cannot read the proxy config ${file} as JSON; check the path and its syntax`, {
      cause: error,
    });
  }
  return parseOrThrow(ProxyConfigSchema, raw, `proxy config ${file}`);
}

export function resolverFor(config: ProxyConfig): NameResolver {
  const resolver = config.dns.servers
    ? createServerResolver(config.dns.servers, config.dns.timeoutMs)
    : createSystemResolver(config.dns.timeoutMs);
  const pinned = new Map(Object.entries(config.dns.hosts));
  if (pinned.size === 0) return resolver;
  return { resolve: async (name) => pinned.get(name) ?? resolver.resolve(name) };
}

/** The CAs the placeholder path trusts upstream: Node's roots plus the operator's `upstreamCaFile`. */
export async function upstreamTrust(config: ProxyConfig): Promise<string[]> {
  if (!config.upstreamCaFile) return [];
  let pem: string;
  try {
    pem = await readFile(config.upstreamCaFile, "utf8");
  } catch (error) {
    throw new InputError(`cannot read upstreamCaFile ${config.upstreamCaFile}; check the path`, {
      cause: error,
    });
  }
  return tlsRootsWith(pem);
}
