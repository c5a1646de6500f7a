// Public face of the public-API client: the API client, the config file, the sign-in session.
export { type ApiClient, type ApiClientOptions, createApiClient, toQuery } from "./api-client.js";
export { type ApiRefusalDetails, mapApiFailure } from "./api-errors.js";
export { API_URL_ENV, checkApiUrl, DEFAULT_API_URL, parseApiUrlFlag, resolveApiUrl } from "./api-url.js";
export { deleteConfig, locateConfig, readSavedConfig, saveConfig } from "./config.js";
export { type ConfigLocation, resolveConfigLocation } from "./config-path.js";
export { type SavedConfig, SavedConfigSchema, TOKEN_KINDS, type TokenKind } from "./config-schema.js";
export { newIdempotencyKey } from "./idempotency.js";
export * from "./schemas.js";
export { type ClientSession, chooseWorkspace, LOGIN_HINT, openSession } from "./session.js";
export { checkSignInFresh, needsTouch, SIGN_IN_LIFETIME } from "./sign-in-lifetime.js";
