// The tokens page's own wire constants: its form posts (under PAGE_PATHS.tokens), their field names, and the
// notices a redirect back to the list may name in `?notice=`.
import { PAGE_PATHS } from "../wire.js";

export const TOKENS_PAGE_PATHS = {
  /** GET: the list and the create form. POST: create a token (the answer shows it, once). */
  list: PAGE_PATHS.tokens,
  /** POST: first asks to confirm, then (with `confirm=yes`) revokes. */
  revoke: `${PAGE_PATHS.tokens}/revoke`,
  /** POST: first asks to confirm, then (with `confirm=yes`) disconnects a connected app. */
  disconnect: `${PAGE_PATHS.tokens}/disconnect`,
} as const;

/** Routes relative to the page's mount (PAGE_PATHS.tokens). */
export const TOKENS_PAGE_ROUTES = { list: "/", revoke: "/revoke", disconnect: "/disconnect" } as const;

export const TOKEN_FORM_FIELDS = {
  /** The new token's id, chosen when the form was shown: a form sent twice creates one token. */
  formId: "formId",
  name: "name",
  lifetimeDays: "lifetimeDays",
  tokenId: "tokenId",
  grantId: "grantId",
  /** `yes` on the confirmation step's form. */
  confirm: "confirm",
} as const;

export const CONFIRM_YES = "yes";

export const NOTICES = {
  revoked: "revoked",
  alreadyRevoked: "already-revoked",
  disconnected: "disconnected",
  alreadyCreated: "already-created",
} as const;
export type Notice = (typeof NOTICES)[keyof typeof NOTICES];

/** The largest form the page accepts (a name of 100 characters and a few ids fit many times over). */
export const FORM_MAX_BYTES = 16 * 1024;
