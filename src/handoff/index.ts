// Public face of handoff handling: parse (current and legacy shapes), path safety, the saved handoff file.
export { checkSavedHandoffPaths, type SavedHandoffPaths } from "./check-saved.js";
export { parseManagedStartup } from "./parse.js";
export {
  assertNoLinkEscape,
  BATON_PATH_FIELDS,
  CHECKOUT_PATH_FIELDS,
  type HandoffPaths,
  type HandoffRoots,
  resolveHandoffPathLexically,
  resolveHandoffPaths,
} from "./paths.js";
export {
  MAX_SAVED_HANDOFF_BYTES,
  readSavedHandoff,
  renderSavedHandoff,
  SAVED_HANDOFF_SCHEMA_VERSION,
  type SavedHandoff,
  SavedHandoffSchema,
  savedHandoffPath,
  writeSavedHandoff,
} from "./saved.js";
