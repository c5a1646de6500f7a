// Public face of activation inside the sandbox: each function returns what it did; src/cli prints.
export {
  type ActivateInput,
  type ActivationJson,
  ActivationJsonSchema,
  type ActivationOutcome,
  activateRepository,
} from "./activate.js";
export { type AppliedOverlay, type AppliedVariable, applyOverlay } from "./apply-overlay.js";
export { type Completed, completeActivation, type LocalFiles, LocalFilesSchema } from "./complete.js";
export { applyOverlayDocument, type EnvApplyInput } from "./env-apply.js";
export { type EnvironmentFileView, readEnvironmentManifest } from "./env-show.js";
export { installRunner, packagedRunnerPath, type RunnerInstall } from "./install-runner.js";
export { readOperation } from "./read-operation.js";
export { waitForOperation } from "./wait.js";
