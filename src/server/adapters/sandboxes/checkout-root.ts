// Where a box's checkout may come from: only from under the operator's `--checkout-root`, never from the service's
// own files (its data folder, store, key files), and never through a link that leads out of the root. Paths are
// compared after resolving every link (realpath), and the copy then uses the resolved path, so a link swapped in
// later cannot redirect it; links inside the tree are copied as links (never followed on the host).
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { UsageError } from "../../../errors.js";

export const CHECKOUT_ROOT_FLAG = "--checkout-root";

/** True when `path` is `dir` or below it (both absolute and resolved). Pure. */
export function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The real path of `path`, or of its nearest existing parent joined with the rest (for files not made yet). */
function realOrResolved(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = resolve(absolute, "..");
    return parent === absolute ? absolute : resolve(realOrResolved(parent), relative(parent, absolute));
  }
}

/**
 * Checks the operator's root at start: an existing folder that neither holds nor lies inside any of the service's
 * own files (`protectedPaths`: the data folder, the store, the key files). Returns its real path.
 */
export function checkCheckoutRoot(root: string, protectedPaths: readonly string[]): string {
  let real: string;
  try {
    real = realpathSync(resolve(root));
    if (!statSync(real).isDirectory()) throw new Error("not a folder");
  } catch {
    throw new UsageError(
      `${CHECKOUT_ROOT_FLAG} ${root} is not an existing folder; give the folder checkouts live under`,
      {
        path: CHECKOUT_ROOT_FLAG,
      },
    );
  }
  for (const path of protectedPaths) {
    const own = realOrResolved(path);
    if (isWithin(own, real) || isWithin(real, own))
      throw new UsageError(
        `${CHECKOUT_ROOT_FLAG} ${root} overlaps the service's own files (${path}); give a folder apart from the data folder and key files`,
        { path: CHECKOUT_ROOT_FLAG },
      );
  }
  return real;
}

export type CheckoutDecision = { ok: true; path: string } | { ok: false; reason: string };

/** The real path to copy for a requested checkout, or why it is refused (`root` already checked, real). */
export function resolveCheckout(requested: string, root: string | undefined): CheckoutDecision {
  if (!root)
    return {
      ok: false,
      reason: `checkouts are refused: this service has no checkout root; start baton serve with ${CHECKOUT_ROOT_FLAG} <dir> and give a folder under it`,
    };
  if (!isAbsolute(requested))
    return { ok: false, reason: `checkout must be an absolute path under the checkout root ${root}` };
  let real: string;
  try {
    real = realpathSync(requested);
    if (!statSync(real).isDirectory()) return { ok: false, reason: `checkout ${requested} is not a folder` };
  } catch {
    return { ok: false, reason: `checkout ${requested} does not exist under the checkout root ${root}` };
  }
  if (!isWithin(real, root))
    return {
      ok: false,
      reason: `checkout ${requested} is not under the checkout root ${root} (links are followed before checking)`,
    };
  return { ok: true, path: real };
}
