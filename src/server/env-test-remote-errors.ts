// The named service's refusals of `baton env test --serve`'s box, each passed on with what to fix. Pure: an
// error in, an error out (the others unchanged: the admin client's already name the fix).
import { ServiceError } from "../errors.js";

export interface RefusalContext {
  serve: string;
  workspace: string;
  repository: string;
  /** The checkout as sent: its real path on this machine, which the service reads on its own. */
  checkout: string;
}

export function explainRefusal(error: unknown, context: RefusalContext): unknown {
  if (!(error instanceof ServiceError)) return error;
  const reason = typeof error.details?.reason === "string" ? error.details.reason : "";
  const again = (message: string) =>
    new ServiceError(error.code as ConstructorParameters<typeof ServiceError>[0], message, {
      cause: error,
      ...(error.status !== undefined ? { status: error.status } : {}),
    });
  if (error.status === 400 && reason.includes("need a sandbox driver"))
    return again(
      `the service at ${context.serve} runs no sandbox driver, so it has no box to lend; start it with --sandbox-driver docker|namespace (and --checkout-root), or run baton env test without --serve for a throwaway one`,
    );
  if (error.status === 400 && /checkout/i.test(reason))
    return again(
      `the service at ${context.serve} refused the checkout ${context.checkout}: ${reason}. It copies the checkout from its own disk: give a folder under its --checkout-root (as its machine sees it), or start it with a --checkout-root that holds this one`,
    );
  if (error.status === 404 && reason.includes("no such workspace"))
    return again(
      `workspace ${context.workspace} is unknown to the service at ${context.serve}; give --workspace one it has (its seed names them)`,
    );
  return error;
}
