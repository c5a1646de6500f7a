// The I/O around renderDisclosure: gather inputs, render, sanitise once more. Returns the disclosure; src/cli
// prints it.
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { readEnvironmentFile } from "../envfile/read-environment.js";
import { createSanitiser, knownSecretsFrom } from "../evidence/index.js";
import { parseCheckFlag } from "./checks.js";
import { collectDisclosureInputs } from "./collect.js";
import { renderDisclosure } from "./render.js";
import type { Disclosure } from "./types.js";

export async function discloseRepository(input: {
  repository: string;
  checks: string[];
  env: NodeJS.ProcessEnv;
}): Promise<Disclosure> {
  const repository = parseOrThrow(RepositorySlugSchema, input.repository, "repository");
  const checks = input.checks.map(parseCheckFlag);
  const paths = resolveSandboxPaths(input.env);
  const disclosure = renderDisclosure(await collectDisclosureInputs({ paths, repository, checks }));
  // Everything shown came from sanitised records, but instructions and notes are repository text: scan it all
  // once more for the overlay's secrets and token shapes before it leaves the sandbox.
  const environmentFile = readEnvironmentFile(paths.batonDir);
  const sanitiser = createSanitiser({ secrets: knownSecretsFrom(environmentFile, input.env) });
  return { ...disclosure, markdown: sanitiser.sanitise(disclosure.markdown).text };
}
