// The evidence area's public face: the secret sanitiser, its detectors, and the bounded evidence record.
export { compareHits, mergeHits, redactionMarker } from "./apply-hits.js";
export { ANSI_KIND, CONTROL_KIND, stripControlCharacters } from "./control-chars.js";
export { DETECTORS, type Detector } from "./detectors.js";
export { findSecretKinds, looksLikeSecret } from "./looks-like-secret.js";
export {
  createSanitiser,
  type KnownSecret,
  type RedactionCounts,
  type SanitisedText,
  type Sanitiser,
  type SanitiserOptions,
} from "./sanitiser.js";
export { encodeSecretForms, MIN_SECRET_LENGTH, type SecretForm } from "./secret-forms.js";
export type { SanitiserStream } from "./stream.js";
