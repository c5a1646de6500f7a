// The I/O around renderDisclosure: gather inputs, render, sanitise once more, print.
import type { ExitCode } from "../cli/exit-codes.js";
import { EXIT } from "../cli/exit-codes.js";
import { type CliIo, writeJson } from "../cli/io.js";
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { readEnvironmentFile } from "../envfile/read-environment.js";
import { createSanitiser, knownSecretsFrom } from "../evidence/index.js";
import { parseCheckFlag } from "./checks.js";
import { collectDisclosureInputs } from "./collect.js";
import { renderDisclosure } from "./render.js";

export async function discloseCommand(options: {
  repository: string;
  checks: string[];
  json: boolean;
  io: CliIo;
}): Promise<ExitCode> {
  const { io } = options;
  const repository = parseOrThrow(RepositorySlugSchema, options.repository, "repository");
  const checks = options.checks.map(parseCheckFlag);
  const paths = resolveSandboxPaths(io.env);
  const disclosure = renderDisclosure(await collectDisclosureInputs({ paths, repository, checks }));
  // Everything shown came from sanitised records, but instructions and notes are repository text: scan it all
  // once more for the overlay's secrets and token shapes before it leaves the sandbox.
  const environmentFile = readEnvironmentFile(paths.batonDir);
  const sanitiser = createSanitiser({ secrets: knownSecretsFrom(environmentFile, io.env) });
  const markdown = sanitiser.sanitise(disclosure.markdown).text;
  if (options.json) writeJson(io.stdout, { ...disclosure, markdown });
  else io.stdout.write(markdown);
  return EXIT.ok;
}
