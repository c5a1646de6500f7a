// The path rules applied again every time a saved handoff is read (by `baton dockerfile`, `baton disclose` and
// the startup runner): the file is ours, but anything in the sandbox may have edited it since activation.
// Dependency-free, so the runner bundles this very function.
import { isAbsolute, normalize } from "node:path";
import { UnsafePathError } from "../errors.js";
import { type HandoffPaths, resolveHandoffPaths } from "./paths.js";

export interface SavedHandoffPaths {
  repository: string;
  checkoutPath: string;
  managedStartup: (HandoffPaths & { repository?: string }) | null;
}

/**
 * Returns the handoff with its checkout and every managedStartup path checked and absolute. Refuses a handoff
 * naming another repository than `expected` (when given), a checkout path that is not absolute and plain
 * (`..`, `~`), and any managedStartup path that breaks the rules.
 */
export function checkSavedHandoffPaths<T extends SavedHandoffPaths>(
  saved: T,
  input: { file: string; batonDir: string; expected?: string | undefined },
): T {
  const fix = `Run \`baton env activate ${input.expected ?? saved.repository}\` again to rewrite ${input.file}`;
  const refuse = (message: string, path: string) =>
    new UnsafePathError(`${input.file}: ${message}; refusing it. ${fix}`, { path });
  if (input.expected !== undefined && saved.repository !== input.expected) {
    throw refuse(`the saved handoff is for ${saved.repository}, not ${input.expected}`, "repository");
  }
  const startup = saved.managedStartup;
  if (startup?.repository !== undefined && startup.repository !== saved.repository) {
    throw refuse(
      `managedStartup names ${startup.repository}, not ${saved.repository}`,
      "managedStartup.repository",
    );
  }
  const checkout = saved.checkoutPath;
  if (!isAbsolute(checkout) || checkout.split("/").includes("..") || normalize(checkout) !== checkout) {
    throw refuse(
      `checkoutPath ${JSON.stringify(checkout)} must be an absolute path without '..'`,
      "checkoutPath",
    );
  }
  if (startup === null) return saved;
  const managedStartup = resolveHandoffPaths(startup, {
    checkoutPath: checkout,
    batonDir: input.batonDir,
    fix,
  });
  return { ...saved, managedStartup };
}
