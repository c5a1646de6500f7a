// Public face of the operations-transport client.
export { createOpsClient, type OpsClient, type OpsClientOptions } from "./client.js";
export { isRetryableStatus, mapHttpFailure, parseRetryAfter } from "./errors.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./http.js";
export { describeBaseUrl, type OpsSettings, requireOpsSettings } from "./settings.js";
