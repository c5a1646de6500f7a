// The operator's config file (`baton proxy --config <file>`): allow and deny rules (CIDR, host globs, ports,
// methods), the headers that may carry placeholders, DNS servers and time-outs. Parsed once with zod.
import ipaddr from "ipaddr.js";
import * as z from "zod";

const PortRangeSchema = z.union([
  z.number().int().min(1).max(65535),
  z
    .string()
    .regex(/^[0-9]{1,5}-[0-9]{1,5}$/, "must be a port or a range such as 8000-8100")
    .refine((text) => {
      const [low, high] = text.split("-").map(Number) as [number, number];
      return low >= 1 && high <= 65535 && low <= high;
    }, "must be a range of ports 1 to 65535, low first"),
]);

const HostGlobSchema = z
  .string()
  .regex(
    /^(\*|(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?)$/,
    "must be a hostname, *.<domain> or *",
  );

const CidrSchema = z.string().refine((text) => {
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return !text.includes("/") && ipaddr.isValid(text);
  }
}, "must be an address or CIDR block such as 10.20.0.0/16 or fd00:1::/64");

const MethodSchema = z
  .string()
  .regex(/^[A-Za-z]{1,20}$/, "must be an HTTP method such as GET")
  .transform((m) => m.toUpperCase());

export const RuleSchema = z
  .object({
    /** A label for audit lines; by default `allow[0]`, `deny[2]`, ... */
    name: z.string().min(1).max(64).optional(),
    cidr: z.array(CidrSchema).min(1).optional(),
    hosts: z.array(HostGlobSchema).min(1).optional(),
    ports: z.array(PortRangeSchema).min(1).optional(),
    methods: z.array(MethodSchema).min(1).optional(),
  })
  .strict()
  .refine(
    (rule) => rule.cidr || rule.hosts || rule.ports || rule.methods,
    "a rule needs at least one of cidr, hosts, ports, methods",
  );

export const ProxyConfigSchema = z
  .object({
    /** Rules that let a request through to a special-purpose (e.g. private) address. */
    allow: z.array(RuleSchema).default([]),
    /** Rules that refuse a request, checked before allow rules and before resolution where they can be. */
    deny: z.array(RuleSchema).default([]),
    /** Headers besides Authorization in which placeholders are swapped (case-insensitive). */
    substituteHeaders: z.array(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "must be a header name")).default([]),
    dns: z
      .object({
        /** DNS servers (`ip` or `ip:port`) to ask instead of the system resolver. */
        servers: z.array(z.string().min(1)).min(1).optional(),
        /** Names pinned to addresses (like /etc/hosts), answered first; the addresses are checked as any others. */
        hosts: z
          .record(
            z.string().regex(/^[a-z0-9.-]{1,253}$/, "must be a lowercase host name"),
            z.array(z.string().refine((a) => ipaddr.isValid(a), "must be an IP address")).min(1),
          )
          .default({}),
        timeoutMs: z.number().int().positive().max(60_000).default(5_000),
      })
      .strict()
      .default({ timeoutMs: 5_000, hosts: {} }),
    /** PEM file of extra CAs the proxy trusts for upstream TLS on the placeholder path (system CAs too). */
    upstreamCaFile: z.string().min(1).optional(),
    timeouts: z
      .object({
        connectMs: z.number().int().positive().max(120_000).default(10_000),
        /** An upstream that sends nothing for this long ends the request with 504. */
        idleMs: z.number().int().positive().max(3_600_000).default(300_000),
        /**
         * A client must send a request's headers within this (and, on the placeholder path, finish its TLS
         * handshake first): a connection that dawdles is closed.
         */
        headersMs: z.number().int().min(100).max(300_000).default(30_000),
        /**
         * After the proxy has ended a connection (a 408, a refusal), how long the client has to close its side
         * before the proxy destroys the socket: a client that never reads must not keep the handle.
         */
        closeGraceMs: z.number().int().min(0).max(60_000).default(2_000),
      })
      .strict()
      .default({ connectMs: 10_000, idleMs: 300_000, headersMs: 30_000, closeGraceMs: 2_000 }),
    /** Caps on client connections, so no client (and no one lease) can use up the proxy's file handles. */
    limits: z
      .object({
        maxConnections: z.number().int().min(1).max(1_000_000).default(4_096),
        maxConnectionsPerLease: z.number().int().min(1).max(1_000_000).default(256),
      })
      .strict()
      .default({ maxConnections: 4_096, maxConnectionsPerLease: 256 }),
    /** Outbound mail ports (25, 465, 587) are refused unless this is true. */
    allowSmtp: z.boolean().default(false),
    /** How long a lease's policy is cached after `baton serve` answered (seconds). */
    leaseCacheSeconds: z.number().int().min(0).max(300).default(5),
  })
  .strict();

export type ProxyConfig = z.infer<typeof ProxyConfigSchema>;
export type Rule = z.infer<typeof RuleSchema>;

export const DEFAULT_PROXY_CONFIG: ProxyConfig = ProxyConfigSchema.parse({});
