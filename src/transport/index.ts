// Public face of the operations-transport client and the CLI's one HTTP client.

export {
  createHttpClient,
  DEFAULT_RETRY_POLICY,
  type HttpClient,
  type HttpClientOptions,
  type JsonRequest,
  type RetryPolicy,
} from "../net/http-client.js";
export {
  createOpsClient,
  type OpsClient,
  type OpsClientOptions,
  opsHttpOptions,
  readBody,
  type StartedActivation,
} from "./client.js";
export { type HttpFailure, isRetryableStatus, mapHttpFailure, parseRetryAfter } from "./errors.js";
export { describeBaseUrl, type OpsSettings, requireOpsSettings } from "./settings.js";
