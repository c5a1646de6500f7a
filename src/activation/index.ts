// Public face of activation inside the sandbox.
export {
  type ActivateOptions,
  type ActivationJson,
  ActivationJsonSchema,
  activateRepository,
} from "./activate.js";
export { type Completed, completeActivation, type LocalFiles, LocalFilesSchema } from "./complete.js";
export { installRunner, packagedRunnerPath, type RunnerInstall } from "./install-runner.js";
export { createProgressReporter, formatElapsed } from "./progress.js";
export { renderActivation, renderStartupSteps } from "./render.js";
export { renderOperation, showOperation } from "./show-operation.js";
export { waitForOperation } from "./wait.js";
