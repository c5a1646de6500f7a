// Target validation and normalisation (reference section 2 "Capability request"): hosts and URLs become the
// lowercase ASCII hostname; non-URL resource names keep their identity. Refusals say why and never echo the value.
import { domainToASCII } from "node:url";
import { InputError } from "../errors.js";
import { looksLikeRawLog, looksLikeSecretText } from "../evidence/capability-text-detectors.js";

export const MAX_TARGET_LENGTH = 512;

export type TargetForm = "host" | "name";
export interface NormalisedTarget {
  form: TargetForm;
  /** The hostname for `host`, the trimmed resource name for `name`. */
  value: string;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** `host`, `host:port`, `host/path`, `host:port/path`: at least one dot, or an IPv4 address, or localhost. */
const HOST_LIKE = /^(?:[^\s/:@?#]+\.[^\s/:@?#]+|localhost)(?::\d{1,5})?(?:[/?#].*)?$/i;
const ENV_VAR = /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|[A-Z][A-Z0-9]*_[A-Z0-9_]*)$/;
const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function refuse(why: string): never {
  throw new InputError(`target: ${why} (the value is not shown)`, { path: "target" });
}

function asciiHostname(raw: string): string {
  let host = raw;
  try {
    host = decodeURIComponent(raw);
  } catch {
    refuse("the hostname is not valid");
  }
  const ascii = domainToASCII(host.toLowerCase()).replace(/\.$/, "");
  if (ascii === "" || !ascii.split(".").every((label) => HOST_LABEL.test(label))) {
    refuse("the hostname is not valid; give a host such as registry.example.com or a URL");
  }
  return ascii;
}

function hostOfUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("not a valid URL; give a host, an https URL or a resource name");
  }
  if (url.username !== "" || url.password !== "" || /^[^/]*\/\/[^/]*@/.test(raw)) {
    refuse("URLs may not contain credentials; remove the user and password and supply access as a secret");
  }
  if (raw.includes("?")) refuse("URLs may not contain a query string; remove everything from '?'");
  if (raw.includes("#")) refuse("URLs may not contain a fragment; remove everything from '#'");
  if (url.hostname === "") refuse("the URL has no host");
  // The URL parser already gives IPv6 literals in canonical lowercase form, e.g. [2001:db8::1].
  if (url.hostname.startsWith("[")) return url.hostname.slice(1, -1);
  return asciiHostname(url.hostname);
}

/**
 * Validates a target and returns its normalised form. `https://Registry.Example.com:443/x` and
 * `registry.example.com` both become host `registry.example.com`.
 */
export function normaliseCapabilityTarget(input: string): NormalisedTarget {
  const raw = input.trim();
  if (raw === "") refuse("is empty; name the host, URL or resource that access is missing for");
  if (raw.length > MAX_TARGET_LENGTH) refuse(`is longer than ${MAX_TARGET_LENGTH} characters`);
  if (/[\r\n]/.test(raw) || looksLikeRawLog(raw)) {
    refuse("looks like log output; give only the host, URL or resource name");
  }
  // Structure first, so a URL with a password is refused for carrying credentials.
  const host = SCHEME.test(raw) ? hostOfUrl(raw) : HOST_LIKE.test(raw) ? hostOfUrl(`https://${raw}`) : null;
  if (looksLikeSecretText(raw)) {
    refuse("looks like a secret; never put secret values in a request, name the resource instead");
  }
  if (host !== null) return { form: "host", value: host };
  if (ENV_VAR.test(raw)) {
    refuse("is an environment-variable name; name the resource (host, URL or service) that access is for");
  }
  if (raw.includes("@") && raw.includes(":")) {
    refuse("looks like an address with a user; give only the host or resource name");
  }
  return { form: "name", value: raw };
}

/** The reason is free text, but never a secret or pasted log output. */
export const MAX_REASON_LENGTH = 1000;
export function validateCapabilityReason(input: string): string {
  const reason = input.trim();
  const fail = (why: string): never => {
    throw new InputError(`reason: ${why} (the value is not shown)`, { path: "reason" });
  };
  if (reason === "") fail("is empty; say what failed and why access is needed");
  if (reason.length > MAX_REASON_LENGTH) fail(`is longer than ${MAX_REASON_LENGTH} characters`);
  if (looksLikeSecretText(reason)) fail("looks like it contains a secret; describe the need without values");
  if (looksLikeRawLog(reason)) fail("looks like raw log output; summarise what failed in a sentence");
  return reason;
}
