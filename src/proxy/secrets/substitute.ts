// Placeholder substitution in request headers. A placeholder becomes its value only in Authorization (Bearer,
// Basic's base64 `user:password`, any other scheme's token) and the headers the operator names (or, for a secret
// bound to headers of its own, a coding agent's model key, only in those), and only when the
// request's origin matches one of that secret's approved destinations. Everywhere else it goes out unchanged and
// is reported as unapproved. A value that cannot travel in a header (a control character, say) is reported as
// unusable instead of swapped, so the proxy refuses the request rather than fail half-way. Pure.
import { destinationMatches, type RequestOrigin } from "../../capability/destination.js";
import type { LeaseSecret } from "../lease/policy.js";
import type { Rewrite } from "./scrub.js";

const PLACEHOLDER = /baton-secret-sec_[0-9a-f]{32}/g;

export interface SubstitutionResult {
  headers: [string, string][];
  swapped: string[];
  unapproved: string[];
  /** Placeholders that are no secret of this sandbox. */
  unknown: number;
  /** Secrets approved here whose value cannot be sent as header text. */
  unusable: string[];
  /** Encoded header values the proxy changed (Basic credentials), for scrubbing an answer that echoes them. */
  rewrites: Rewrite[];
  /**
   * Why the request is ambiguous (two placeholders in one credential header, or two credential headers with
   * placeholders) where one would be swapped; then nothing is swapped and the proxy refuses the request.
   */
  ambiguous: string | null;
}

/** What Node (and HTTP) accept in a header value. */
const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface SubstitutionContext {
  secrets: readonly LeaseSecret[];
  /** The request's origin when authority, SNI and Host agree; null when they do not (nothing is swapped). */
  origin: RequestOrigin | null;
  /** Lowercase names of the headers besides Authorization in which placeholders are swapped. */
  headers: ReadonlySet<string>;
}

export function substitutePlaceholders(
  headers: readonly [string, string][],
  context: SubstitutionContext,
  /** The request target (path and query): placeholders there are reported, never swapped. */
  target = "",
): SubstitutionResult {
  const byPlaceholder = new Map(context.secrets.map((s) => [s.placeholder, s]));
  const swapped = new Set<string>();
  const unapproved = new Set<string>();
  const unusable = new Set<string>();
  const rewrites: Rewrite[] = [];
  let unknown = 0;
  const approved = (secret: LeaseSecret) =>
    context.origin !== null && secret.destinations.some((d) => destinationMatches(d, context.origin!));
  /** Whether `secret` travels in the header `lower` (null: the request target, where nothing is swapped). */
  const carries = (secret: LeaseSecret, lower: string | null) =>
    lower !== null &&
    (secret.headers
      ? secret.headers.includes(lower)
      : lower === "authorization" || context.headers.has(lower));
  const note = (placeholder: string, lower: string | null, encoded: boolean): string | null => {
    const secret = byPlaceholder.get(placeholder);
    if (!secret) {
      unknown += 1;
      return null;
    }
    if (carries(secret, lower) && approved(secret)) {
      if (!encoded && !HEADER_TEXT.test(secret.value)) {
        unusable.add(secret.id);
        return null;
      }
      swapped.add(secret.id);
      return secret.value;
    }
    unapproved.add(secret.id);
    return null;
  };
  const ambiguous = findAmbiguity(headers, context, (placeholder) => {
    const secret = byPlaceholder.get(placeholder);
    return secret !== undefined && approved(secret);
  });
  if (ambiguous !== null) {
    for (const [, value] of headers) {
      for (const placeholder of placeholdersIn(value)) {
        const secret = byPlaceholder.get(placeholder);
        if (secret) unapproved.add(secret.id);
      }
    }
    return {
      headers: [...headers],
      swapped: [],
      unapproved: [...unapproved],
      unknown: 0,
      unusable: [],
      rewrites: [],
      ambiguous,
    };
  }
  const swapIn = (text: string, lower: string | null, encoded = false) =>
    text.replace(PLACEHOLDER, (placeholder) => note(placeholder, lower, encoded) ?? placeholder);

  const out = headers.map(([name, value]): [string, string] => {
    const lower = name.toLowerCase();
    if (lower === "authorization") {
      const basic = /^(basic)\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value);
      if (basic) {
        const decoded = Buffer.from(basic[2]!, "base64").toString("utf8");
        if (decoded.match(PLACEHOLDER)) {
          const sent = Buffer.from(swapIn(decoded, lower, true), "utf8").toString("base64");
          rewrites.push({ sent, original: basic[2]! });
          return [name, `${basic[1]} ${sent}`];
        }
      }
    }
    return [name, value.match(PLACEHOLDER) ? swapIn(value, lower) : value];
  });
  if (target.match(PLACEHOLDER)) swapIn(target, null);
  return {
    headers: out,
    swapped: [...swapped],
    unapproved: [...unapproved],
    unknown,
    unusable: [...unusable],
    rewrites,
    ambiguous: null,
  };
}

/** The placeholders in a header value, looking inside Basic's base64 `user:password` too. */
function placeholdersIn(value: string): string[] {
  const basic = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value);
  const text = basic ? `${value} ${Buffer.from(basic[1]!, "base64").toString("utf8")}` : value;
  return text.match(PLACEHOLDER) ?? [];
}

/**
 * Where a placeholder would be swapped, one credential header may carry one placeholder, and one header of each
 * credential name may carry any: with two, the upstream gets two secrets and the proxy cannot tell which one the
 * request meant (nor the audit which one was used). Returns the reason, or null.
 */
function findAmbiguity(
  headers: readonly [string, string][],
  context: SubstitutionContext,
  wouldSwap: (placeholder: string) => boolean,
): string | null {
  const carriers = new Map<string, { lines: number; swaps: boolean }>();
  // Authorization, the operator's headers, and any a secret is bound to (a model key's vendor header).
  const credentialHeaders = new Set(["authorization", ...context.headers]);
  for (const secret of context.secrets)
    for (const header of secret.headers ?? []) credentialHeaders.add(header);
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (!credentialHeaders.has(lower)) continue;
    const found = placeholdersIn(value);
    if (found.length === 0) continue;
    const swaps = found.some(wouldSwap);
    if (found.length > 1 && swaps) return `the ${name} header holds ${found.length} placeholders`;
    const seen = carriers.get(lower) ?? { lines: 0, swaps: false };
    carriers.set(lower, { lines: seen.lines + 1, swaps: seen.swaps || swaps });
  }
  for (const [name, seen] of carriers) {
    if (seen.lines > 1 && seen.swaps) return `${seen.lines} ${name} headers carry placeholders`;
  }
  return null;
}
