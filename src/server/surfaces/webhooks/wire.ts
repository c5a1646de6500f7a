// The webhook receivers' wire constants: paths, the platforms' header names, limits and answers. Nothing else
// spells them. The schemes are the platforms' own (GitHub's `X-Hub-Signature-256`, Linear's `Linear-Signature`).
import { MiB } from "../http/json-body.js";

export const WEBHOOKS_BASE_PATH = "/webhooks";

export const WEBHOOK_SOURCES = ["codehost", "tracker"] as const;
export type WebhookSource = (typeof WEBHOOK_SOURCES)[number];

export const WEBHOOK_PATHS = { codehost: "/codehost", tracker: "/tracker" } as const;
/** The receivers' full paths, as served. */
export const WEBHOOK_ROUTE_PATTERNS = {
  codehost: `${WEBHOOKS_BASE_PATH}${WEBHOOK_PATHS.codehost}`,
  tracker: `${WEBHOOKS_BASE_PATH}${WEBHOOK_PATHS.tracker}`,
} as const;

/** GitHub: `sha256=<hex HMAC-SHA256 of the raw body>`, the event name and the delivery's GUID. */
export const CODEHOST_HEADERS = {
  signature: "x-hub-signature-256",
  event: "x-github-event",
  delivery: "x-github-delivery",
} as const;
export const CODEHOST_SIGNATURE_PREFIX = "sha256=";

/** Linear: `<hex HMAC-SHA256 of the raw body>`, the event type and the delivery's id. */
export const TRACKER_HEADERS = {
  signature: "linear-signature",
  event: "linear-event",
  delivery: "linear-delivery",
} as const;

export const WEBHOOK_LIMITS = {
  /** A delivery's body; bigger ones are refused (413) before they are read whole. */
  bodyBytes: 1 * MiB,
  /** A delivery id or event name longer than this is refused as malformed. */
  headerChars: 200,
  /** Objects and arrays inside one another; the platforms' payloads nest about ten deep. */
  jsonDepth: 64,
} as const;

/** Why a delivery was refused (the audit line's `why`; the 401's `reason` says it in words). */
export const REJECTIONS = {
  missingSignature: "missing_signature",
  badSignature: "bad_signature",
  staleTimestamp: "stale_timestamp",
  missingHeaders: "missing_headers",
  notJson: "not_json",
  tooDeep: "too_deep",
} as const;
export type Rejection = (typeof REJECTIONS)[keyof typeof REJECTIONS];

export const WEBHOOK_ERRORS = { invalidSignature: "invalid_signature" } as const;
