// Environment files: rendering and parsing (pure); src/safefs writes them.
export {
  ENVIRONMENT_FILE_MARKER,
  type EnvironmentManifest,
  parseEnvironmentHeader,
} from "./header.js";
export * from "./overlay.js";
export { quoteShellValue } from "./quote.js";
export { MAX_ENVIRONMENT_FILE_BYTES, readEnvironmentFile } from "./read-environment.js";
export {
  DOCKERFILE_ENVIRONMENT_FILE_MARKER,
  type DockerfileEnvironmentInput,
  renderDockerfileEnvironmentFile,
} from "./render-dockerfile-environment.js";
export { renderEnvironmentFile } from "./render-environment.js";
export {
  CA_BUNDLE_VARIABLES,
  NO_PROXY_VARIABLES,
  NODE_CA_VARIABLE,
  PROXY_URL_VARIABLES,
  type ProxySettings,
  proxyUrlWithLease,
  renderProxySettings,
} from "./render-proxy-settings.js";
