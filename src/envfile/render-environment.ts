// Renders $HOME/.baton/environment.sh from an overlay. Pure.
import { InputError, isBatonError } from "../errors.js";
import { renderEnvironmentHeader } from "./header.js";
import { type Overlay, SHELL_NAME_PATTERN } from "./overlay.js";
import { quoteShellValue } from "./quote.js";
import { type ProxySettings, renderProxySettings } from "./render-proxy-settings.js";

// `${HOME:-}` keeps `set -u` shells happy when HOME is unset.
// biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a JS template
const DOCKERFILE_ENVIRONMENT = '"${HOME:-}/.baton/dockerfile-environment.sh"';
const SOURCE_DOCKERFILE_ENVIRONMENT = [
  "# Dockerfile ENV first, so the sandbox.env and secret assignments below keep precedence over it.",
  `if [ -f ${DOCKERFILE_ENVIRONMENT} ]; then`,
  `  . ${DOCKERFILE_ENVIRONMENT}`,
  "fi",
];

/**
 * Header (revision and name mapping), then the Dockerfile environment file when it exists, then every
 * `sandbox.env` export, then every secret assignment, then the egress-proxy settings (when the sandbox has a
 * proxy), which nothing overrides. Throws InputError naming the field of a bad value.
 */
export function renderEnvironmentFile(overlay: Overlay, proxy: ProxySettings | null = null): string {
  const variables = overlay.repositories.flatMap((repo, r) =>
    repo.variables.map((variable, v) => ({
      repository: repo.repository,
      ...variable,
      path: `repositories[${r}].variables[${v}]`,
    })),
  );
  const exportsFor = (source: "sandbox.env" | "secret") =>
    variables.filter((v) => v.source === source).map((v) => renderExport(v.assigned, v.value, v.path));
  return [
    ...renderEnvironmentHeader({
      revision: overlay.revision,
      variables: variables.map(({ repository, name, assigned, source }) => ({
        repository,
        name,
        assigned,
        source,
      })),
    }),
    "",
    ...SOURCE_DOCKERFILE_ENVIRONMENT,
    "",
    "# sandbox.env",
    ...exportsFor("sandbox.env"),
    "",
    "# secrets",
    ...exportsFor("secret"),
    "",
    ...(proxy ? [...renderProxySettings(proxy), ""] : []),
  ].join("\n");
}

/** One `export NAME='value'` line; the name is checked again because it is written unquoted. */
export function renderExport(assigned: string, value: string, path: string): string {
  if (!SHELL_NAME_PATTERN.test(assigned)) {
    throw new InputError(`${JSON.stringify(assigned)} is not a shell variable name`, {
      path: `${path}.assigned`,
    });
  }
  try {
    return `export ${assigned}=${quoteShellValue(value)}`;
  } catch (error) {
    if (isBatonError(error)) throw new InputError(error.message, { path: `${path}.value`, cause: error });
    throw error;
  }
}
