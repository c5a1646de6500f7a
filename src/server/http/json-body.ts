// Request bodies. A route that takes one names it and bounds it; its auth middleware runs first, so an unknown
// caller is refused before a byte of body is read. The body then streams in up to the route's limit: 413 as soon
// as it passes (at once when Content-Length says so), before the rest is read. The bytes must be UTF-8 (invalid
// ones are refused, never turned into U+FFFD); hono's validator then parses the JSON and zod checks its shape.
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { invalidRequest, payloadTooLarge } from "./http-error.js";
import type { ServerEnv } from "./surface.js";

export const KiB = 1024;
export const MiB = 1024 * KiB;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Middleware for a route's JSON body: `what` names it in refusals, `limitBytes` bounds it. */
export function jsonBody(what: string, limitBytes: number) {
  return [
    bodyLimit({
      maxSize: limitBytes,
      onError: () => {
        throw payloadTooLarge(what, limitBytes);
      },
    }),
    createMiddleware<ServerEnv>(async (c, next) => {
      c.set("bodyName", what);
      let bytes: ArrayBuffer;
      try {
        bytes = await c.req.arrayBuffer();
      } catch {
        // The client went away mid-body; nobody reads this answer, but it must not count as a service failure.
        throw invalidRequest(`${what} could not be read to its end`);
      }
      let text: string;
      try {
        text = strictUtf8.decode(bytes);
      } catch {
        throw invalidRequest(`${what} is not valid UTF-8; send JSON encoded as UTF-8`);
      }
      // hono's JSON validator reads the body through this cache, so it parses exactly the text checked here. The
      // cache holds promises (HonoRequest#cachedBody chains `.then`) although its type says string.
      c.req.bodyCache.text = Promise.resolve(text) as unknown as string;
      await next();
    }),
  ] as const;
}
