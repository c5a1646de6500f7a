// The evidence area's public face: the secret sanitiser, its detectors, and the bounded evidence record.
export { compareHits, mergeHits, redactionMarker } from "./apply-hits.js";
export { boundEvidence, evidenceSize } from "./bound-evidence.js";
export { type ScanEngine, wasmAvailable } from "./candidate-scan.js";
export { ANSI_KIND, CONTROL_KIND, stripControlCharacters } from "./control-chars.js";
export { DETECTORS, type Detector } from "./detectors.js";
export {
  isUnlistedSecret,
  knownSecretsFrom,
  secretNamesFromEnvironmentFile,
  TRANSPORT_CREDENTIAL_NAMES,
} from "./known-secrets.js";
export { findSecretKinds, looksLikeSecret } from "./looks-like-secret.js";
export {
  DEFAULT_EVIDENCE_LIMIT_BYTES,
  EVIDENCE_OUTCOMES,
  EVIDENCE_SCHEMA_VERSION,
  type EvidenceOutcome,
  type EvidenceOutput,
  type EvidenceReadiness,
  type EvidenceRecord,
  READINESS_STATUSES,
  type ReadinessCheckResult,
  type ReadinessStatus,
  RUNNER_EXIT,
} from "./record.js";
export {
  createSanitiser,
  type KnownSecret,
  type RedactionCounts,
  type SanitisedText,
  type Sanitiser,
  type SanitiserOptions,
} from "./sanitiser.js";
export { EvidenceRecordSchema, evidenceJsonSchema, ReadinessCheckResultSchema } from "./schema.js";
export { encodeSecretForms, MIN_SECRET_LENGTH, type SecretForm } from "./secret-forms.js";
export type { SanitiserStream } from "./stream.js";
