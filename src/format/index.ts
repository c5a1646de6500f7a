// Public face of the small text formatters every output shares.
export { formatDuration } from "./duration.js";
export { countOf } from "./plural.js";
