// Path safety for a handoff (the README's "Path rules"): files of the checkout stay inside the checkout,
// `~/.baton/` files stay inside ~/.baton. Lexical rules first (no `..`, no absolute escape, no `~` elsewhere),
// then symbolic links: the deepest part of the path that exists is resolved with realpath and must stay under
// the root's real path. Dependency-free and synchronous: the startup runner bundles this same code and applies
// it to every handoff it reads, as the CLI does when activating and on every later read.
import { realpathSync } from "node:fs";
import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { UnsafePathError } from "../errors.js";

export const CHECKOUT_PATH_FIELDS = ["dockerfilePath", "agentInstructionsPath", "startupScriptPath"] as const;
export const BATON_PATH_FIELDS = ["runPath", "evidencePath"] as const;
export type HandoffPathField = (typeof CHECKOUT_PATH_FIELDS)[number] | (typeof BATON_PATH_FIELDS)[number];

/** The path fields of a `managedStartup` handoff (null: none). */
export type HandoffPaths = { [K in HandoffPathField]: string | null };

export interface HandoffRoots {
  /** Absolute path of the repository's checkout. */
  checkoutPath: string;
  /** Absolute path of `$HOME/.baton`. */
  batonDir: string;
  /** What to do about a refused path; by default, ask the workspace's admins (the service sent it). */
  fix?: string;
}

type Root = { kind: "checkout" | "baton"; dir: string };

const ADMINS_FIX = "Ask the workspace's admins to fix the repository environment";

/** Lexical check and resolution to an absolute path. Pure. */
export function resolveHandoffPathLexically(
  field: string,
  value: string,
  root: Root,
  fix = ADMINS_FIX,
): string {
  const refuse = (why: string) =>
    new UnsafePathError(`the handoff's ${field} ${JSON.stringify(value)} ${why}; refusing it. ${fix}`, {
      path: `managedStartup.${field}`,
    });
  if (value.split(/[\\/]/).includes("..")) throw refuse("contains '..'");
  let absolute: string;
  if (root.kind === "baton") {
    if (value.startsWith("~/.baton/")) absolute = join(root.dir, value.slice("~/.baton/".length));
    else if (isAbsolute(value)) absolute = normalize(value);
    else throw refuse("must start with ~/.baton/");
  } else {
    if (value.startsWith("~")) throw refuse("must be relative to the checkout");
    absolute = isAbsolute(value) ? normalize(value) : resolve(root.dir, value);
  }
  if (!isInside(root.dir, absolute)) {
    throw refuse(root.kind === "baton" ? "leaves ~/.baton" : "leaves the checkout");
  }
  return absolute;
}

export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** Refuses a path whose existing part resolves, through a symbolic link, outside the root. */
export function assertNoLinkEscape(field: string, absolute: string, root: Root): void {
  const realRoot = realpathOrUndefined(root.dir);
  if (realRoot === undefined) return; // nothing under a missing root can be a link out
  let probe = absolute;
  while (isInside(root.dir, probe)) {
    const real = realpathOrUndefined(probe);
    if (real !== undefined) {
      if (!isInside(realRoot, real)) {
        throw new UnsafePathError(
          `the handoff's ${field} goes through a symbolic link out of ${root.kind === "baton" ? "~/.baton" : "the checkout"} (${probe}); refusing it. Remove the link and activate again`,
          { path: `managedStartup.${field}` },
        );
      }
      return;
    }
    probe = resolve(probe, "..");
  }
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The handoff with every path absolute and checked against its root. */
export function resolveHandoffPaths<T extends HandoffPaths>(handoff: T, roots: HandoffRoots): T {
  const out: T = { ...handoff };
  const fields = [
    ...CHECKOUT_PATH_FIELDS.map((field) => [field, { kind: "checkout", dir: roots.checkoutPath }] as const),
    ...BATON_PATH_FIELDS.map((field) => [field, { kind: "baton", dir: roots.batonDir }] as const),
  ];
  for (const [field, root] of fields) {
    const value = handoff[field];
    if (value === null) continue;
    const absolute = resolveHandoffPathLexically(field, value, root, roots.fix);
    assertNoLinkEscape(field, absolute, root);
    out[field] = absolute;
  }
  return out;
}
