// Environment files: rendering (pure) and the atomic writer (I/O) for ~/.baton.
export {
  ENVIRONMENT_FILE_MARKER,
  type EnvironmentManifest,
  parseEnvironmentHeader,
} from "./header.js";
export * from "./overlay.js";
export { quoteShellValue } from "./quote.js";
export {
  DOCKERFILE_ENVIRONMENT_FILE_MARKER,
  type DockerfileEnvironmentInput,
  renderDockerfileEnvironmentFile,
} from "./render-dockerfile-environment.js";
export { renderEnvironmentFile } from "./render-environment.js";
export { assertOwnedDirectory, ensureBatonDir } from "./safe-directory.js";
export { writeFileAtomic } from "./write-atomic.js";
