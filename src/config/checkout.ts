// Which folder is the repository's checkout, and a refusal naming what to fix when it is not a folder. The
// checkout is `--checkout` when given, else what a saved handoff recorded, else $BATON_CHECKOUT_ROOT/<owner>/<name>.
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { BatonError, ConfigError, UsageError } from "../errors.js";
import { checkoutPathFor, type SandboxPaths } from "./sandbox.js";

export type CheckoutSource = "flag" | "handoff" | "root";

export interface CheckoutChoice {
  path: string;
  source: CheckoutSource;
}

/** Picks the checkout; pure. `~` is never expanded here (the shell does that), so a leading `~` is refused. */
export function chooseCheckout(input: {
  flag: string | undefined;
  cwd: string;
  paths: Pick<SandboxPaths, "checkoutRoot">;
  repository: string;
  saved?: string | undefined;
  env: NodeJS.ProcessEnv;
}): CheckoutChoice {
  if (input.flag !== undefined) {
    if (input.flag === "") {
      throw new UsageError(
        `--checkout is empty; pass the folder holding the checkout of ${input.repository}, or leave --checkout out to use $BATON_CHECKOUT_ROOT/<owner>/<name>`,
      );
    }
    if (input.flag.startsWith("~")) {
      throw new UsageError(
        `--checkout ${input.flag}: "~" is not expanded here; pass an absolute path such as "$HOME${input.flag.slice(1)}", or leave --checkout out to use $BATON_CHECKOUT_ROOT/<owner>/<name>`,
      );
    }
    return { path: resolve(input.cwd, input.flag), source: "flag" };
  }
  if (input.saved !== undefined) return { path: input.saved, source: "handoff" };
  const root = input.env.BATON_CHECKOUT_ROOT;
  if (root !== undefined && root !== "" && !isAbsolute(root)) {
    throw new ConfigError(
      `$BATON_CHECKOUT_ROOT must be an absolute path (it is ${JSON.stringify(root)}${root.startsWith("~") ? '; "~" is not expanded here' : ""}); set it to the folder holding <owner>/<name> checkouts, or pass --checkout <dir>`,
    );
  }
  return { path: checkoutPathFor(input.paths, input.repository), source: "root" };
}

/** Refuses a checkout that does not exist or is not a folder (a link to a folder is fine), naming the fix. */
export function assertCheckoutFolder(
  choice: CheckoutChoice,
  context: { repository: string; paths: Pick<SandboxPaths, "checkoutRoot">; env: NodeJS.ProcessEnv },
): void {
  const problem = folderProblem(choice.path);
  if (problem === null) return;
  const { repository } = context;
  if (choice.source === "flag") {
    throw new UsageError(
      `--checkout ${choice.path} ${problem}; pass the folder holding the checkout of ${repository}, or leave --checkout out to use $BATON_CHECKOUT_ROOT/<owner>/<name>`,
    );
  }
  if (choice.source === "handoff") {
    throw new BatonError(
      "not_found",
      `the checkout ${choice.path} recorded in the saved handoff of ${repository} ${problem}; pass --checkout <dir>, or run \`baton env activate ${repository} --checkout <dir>\` again`,
    );
  }
  const root = context.paths.checkoutRoot;
  const rootSet = context.env.BATON_CHECKOUT_ROOT !== undefined && context.env.BATON_CHECKOUT_ROOT !== "";
  const rootName = rootSet
    ? `$BATON_CHECKOUT_ROOT (${root})`
    : `${root} (the default of $BATON_CHECKOUT_ROOT)`;
  const rootProblem = folderProblem(root);
  if (rootProblem !== null) {
    throw new BatonError(
      "not_found",
      `${rootName} ${rootProblem}; ${rootSet ? "set $BATON_CHECKOUT_ROOT to" : "make it, or set $BATON_CHECKOUT_ROOT to"} the folder holding <owner>/<name> checkouts, or pass --checkout <dir>`,
    );
  }
  throw new BatonError(
    "not_found",
    `no checkout of ${repository} at ${choice.path} ($BATON_CHECKOUT_ROOT/<owner>/<name>; it ${problem}); clone ${repository} there, or pass --checkout <dir>`,
  );
}

function folderProblem(path: string): string | null {
  try {
    return statSync(path).isDirectory() ? null : "is not a folder";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be read (${code})`;
  }
}

/** The checkout a command works in: chosen as above and checked to be a folder. */
export function resolveCheckout(input: Parameters<typeof chooseCheckout>[0]): string {
  const choice = chooseCheckout(input);
  assertCheckoutFolder(choice, input);
  return choice.path;
}
