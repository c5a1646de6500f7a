// Variable-name assignment (reference section 2, "Environment activation", Variable naming). Pure.
export { assignVariableNames } from "./assign.js";
export { normaliseQualifier, suffixForRepositoryId } from "./qualifier.js";
export { reserveRepositoryNames } from "./reserve.js";
export type { LedgerEntry, NameAssignment, NamingLedger, RepositoryVariables } from "./types.js";
