// Lease and turn lifetimes for `baton admin`: whole seconds, 1 second to 365 days.
import { wholeNumberIn } from "../../flags.js";

const MAX_SECONDS = 365 * 24 * 60 * 60;

export const LIFETIME_SECONDS = {
  range: `1 to ${MAX_SECONDS} seconds`,
  parse: wholeNumberIn(1, MAX_SECONDS, "seconds"),
};
