// The I/O around renderDisclosure: gather inputs, render, sanitise once more. Returns the disclosure; src/cli
// prints it.
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { readEnvironmentFile } from "../envfile/read-environment.js";
import { PROXY_URL_ENV } from "../envfile/render-proxy-settings.js";
import { createSanitiser, knownSecretsFrom } from "../evidence/index.js";
import { createOpsClient, requireOpsSettings } from "../transport/index.js";
import { parseCheckFlag } from "./checks.js";
import { collectDisclosureInputs } from "./collect.js";
import { renderDisclosure } from "./render.js";
import type { Disclosure, DisclosureInputs } from "./types.js";

export async function discloseRepository(input: {
  repository: string;
  checks: string[];
  env: NodeJS.ProcessEnv;
}): Promise<Disclosure> {
  const repository = parseOrThrow(RepositorySlugSchema, input.repository, "repository");
  const checks = input.checks.map(parseCheckFlag);
  const paths = resolveSandboxPaths(input.env);
  const inputs = await collectDisclosureInputs({ paths, repository, checks });
  const refusals = await readProxyRefusals(input.env);
  const disclosure = renderDisclosure({ ...inputs, ...refusals });
  // Everything shown came from sanitised records, but instructions and notes are repository text: scan it all
  // once more for the overlay's secrets and token shapes before it leaves the sandbox.
  const environmentFile = readEnvironmentFile(paths.batonDir);
  const sanitiser = createSanitiser({ secrets: knownSecretsFrom(environmentFile, input.env) });
  return { ...disclosure, markdown: sanitiser.sanitise(disclosure.markdown).text };
}

/**
 * The egress proxy's refusals from the service, when this shell has the sandbox's transport settings. A sandbox
 * without a proxy (no BATON_PROXY_URL, which activation also reads) has no refusals to show: no section at all,
 * rather than one saying the proxy refused nothing.
 */
async function readProxyRefusals(
  env: NodeJS.ProcessEnv,
): Promise<Pick<DisclosureInputs, "proxyRefusals" | "proxyRefusalsProblem">> {
  if (!env[PROXY_URL_ENV]) return {};
  let client: ReturnType<typeof createOpsClient>;
  try {
    client = createOpsClient(requireOpsSettings(env));
  } catch (error) {
    return {
      proxyRefusals: null,
      proxyRefusalsProblem: error instanceof Error ? error.message : String(error),
    };
  }
  try {
    return { proxyRefusals: await client.getProxyRefusals(), proxyRefusalsProblem: null };
  } catch (error) {
    return {
      proxyRefusals: null,
      proxyRefusalsProblem: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await client.close();
  }
}
