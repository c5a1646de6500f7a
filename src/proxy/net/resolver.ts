// Name resolution, once per request: the system resolver (getaddrinfo, as every other program on the machine
// sees names) or the DNS servers the operator's config names. Every address it returns is checked by the policy
// and the dialer connects only to a checked address; nothing resolves the name a second time.
import { promises as dns } from "node:dns";

export interface NameResolver {
  /** All IPv4 and IPv6 addresses of a name; throws a DnsError when the name does not resolve. */
  resolve(name: string): Promise<string[]>;
}

export class DnsError extends Error {
  override readonly name = "DnsError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

const NO_ANSWER = new Set(["ENOTFOUND", "ENODATA", "ENONAME", "EAI_NONAME", "NOTFOUND", "NODATA"]);

function withTimeout<T>(work: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DnsError("ETIMEOUT", `resolving ${name} took over ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function createSystemResolver(timeoutMs: number): NameResolver {
  return {
    async resolve(name) {
      try {
        const answers = await withTimeout(dns.lookup(name, { all: true, verbatim: true }), timeoutMs, name);
        return answers.map((a) => a.address);
      } catch (error) {
        throw asDnsError(error, name);
      }
    },
  };
}

/** Asks the given servers (`ip` or `ip:port`) for A and AAAA records. */
export function createServerResolver(servers: readonly string[], timeoutMs: number): NameResolver {
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers([...servers]);
  return {
    async resolve(name) {
      const ask = async (family: 4 | 6) => {
        try {
          return family === 4 ? await resolver.resolve4(name) : await resolver.resolve6(name);
        } catch (error) {
          if (NO_ANSWER.has((error as NodeJS.ErrnoException).code ?? "")) return [];
          throw asDnsError(error, name);
        }
      };
      const [v4, v6] = await withTimeout(Promise.all([ask(4), ask(6)]), timeoutMs * 2, name);
      const all = [...v4, ...v6];
      if (all.length === 0) throw new DnsError("ENOTFOUND", `${name} has no A or AAAA records`);
      return all;
    },
  };
}

function asDnsError(error: unknown, name: string): DnsError {
  if (error instanceof DnsError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? "EDNS";
  const what = NO_ANSWER.has(code) ? "does not resolve" : `could not be resolved (${code})`;
  return new DnsError(code, `${name} ${what}`, { cause: error });
}
