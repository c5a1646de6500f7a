// Request bodies. A route that takes one names it and bounds it; its auth middleware runs first, so an unknown
// caller is refused before a byte of body is read. A Content-Length over the limit is refused at once (Node's
// parser holds the body to that length); a body without one streams in up to the limit and is refused as soon
// as it passes, before the rest is read. The bytes must be UTF-8 (invalid ones are refused, never turned into
// U+FFFD); hono's validator then parses the JSON and zod checks its shape.
//
// With a Content-Length the body is read with `arrayBuffer()`, which @hono/node-server serves straight from the
// socket: asking for `body` (as hono's bodyLimit does) makes it build a full web Request, with a ReadableStream
// and an AbortSignal whose cleanup alone cost more CPU than the rest of the request.
import { createMiddleware } from "hono/factory";
import { HttpError, invalidRequest, payloadTooLarge } from "./http-error.js";
import type { ServerEnv } from "./surface.js";

export const KiB = 1024;
export const MiB = 1024 * KiB;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const DECIMAL = /^\d+$/;

/** Middleware for a route's JSON body: `what` names it in refusals, `limitBytes` bounds it. */
export function jsonBody(what: string, limitBytes: number) {
  return [
    createMiddleware<ServerEnv>(async (c, next) => {
      c.set("bodyName", what);
      let bytes: Uint8Array;
      try {
        bytes = await readBounded(c.req.raw, what, limitBytes);
      } catch (error) {
        if (error instanceof HttpError) throw error;
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

/** The body, up to `limit` bytes; over it, a 413 HttpError naming `what`, thrown before the rest is read. */
export async function readBounded(request: Request, what: string, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && DECIMAL.test(declared) && !request.headers.has("transfer-encoding")) {
    if (Number(declared) > limit) throw payloadTooLarge(what, limit);
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw payloadTooLarge(what, limit);
    return bytes;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(what, limit);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
