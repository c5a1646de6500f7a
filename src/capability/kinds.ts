// The fixed capability vocabulary (reference section 2 "Capability request") and the legacy labels that map into it.
import { InputError } from "../errors.js";

export const CAPABILITY_KINDS = [
  "registry_access",
  "service_credential",
  "api_key",
  "data_access",
  "other",
] as const;
export type CapabilityKind = (typeof CAPABILITY_KINDS)[number];

/**
 * Labels earlier clients and workers used, and what they mean now. Documented in the README
 * ("Capability requests"); matching is case-insensitive and treats `-`, `_`, space and `.` alike.
 */
export const LEGACY_CAPABILITY_LABELS: Readonly<Record<string, CapabilityKind>> = {
  registry: "registry_access",
  npm: "registry_access",
  pypi: "registry_access",
  docker: "registry_access",
  container_registry: "registry_access",
  package_registry: "registry_access",
  credentials: "service_credential",
  credential: "service_credential",
  service: "service_credential",
  service_account: "service_credential",
  login: "service_credential",
  apikey: "api_key",
  api_key: "api_key",
  api_token: "api_key",
  token: "api_key",
  database: "data_access",
  db: "data_access",
  data: "data_access",
  dataset: "data_access",
  bucket: "data_access",
  storage: "data_access",
  misc: "other",
  unknown: "other",
};

function foldLabel(label: string): string {
  return label
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, "_");
}

export function isCapabilityKind(value: string): value is CapabilityKind {
  return (CAPABILITY_KINDS as readonly string[]).includes(value);
}

/** A kind or legacy label, or null when it is neither. Used on read for rows stored with older labels. */
export function tryNormaliseCapabilityKind(label: string): CapabilityKind | null {
  const folded = foldLabel(label);
  if (isCapabilityKind(folded)) return folded;
  return LEGACY_CAPABILITY_LABELS[folded] ?? null;
}

/** Throws an InputError listing the kinds when the label is neither a kind nor a known legacy label. */
export function normaliseCapabilityKind(label: string): CapabilityKind {
  const kind = tryNormaliseCapabilityKind(label);
  if (kind !== null) return kind;
  throw new InputError(
    `capability: unknown kind; use one of ${CAPABILITY_KINDS.join(", ")} (legacy labels such as registry, npm, apikey, credentials, database are accepted)`,
    { path: "capability" },
  );
}
