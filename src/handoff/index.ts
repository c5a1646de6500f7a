// Public face of handoff handling: parse (current and legacy shapes), path safety, the saved handoff file.
export { parseManagedStartup } from "./parse.js";
export {
  assertNoLinkEscape,
  BATON_PATH_FIELDS,
  CHECKOUT_PATH_FIELDS,
  type HandoffRoots,
  resolveHandoffPathLexically,
  resolveHandoffPaths,
} from "./paths.js";
export {
  readSavedHandoff,
  renderSavedHandoff,
  SAVED_HANDOFF_SCHEMA_VERSION,
  type SavedHandoff,
  SavedHandoffSchema,
  savedHandoffPath,
  writeSavedHandoff,
} from "./saved.js";
