// Public face of the pull-request disclosure: pure rendering plus the thin reader that gathers its inputs.
export { parseCheckFlag } from "./checks.js";
export { findDraftReasons, renderDisclosure } from "./render.js";
export type { CheckResult, Disclosure, DisclosureInputs, RequiredCheck } from "./types.js";
