// The answer half of a proxied exchange: hop-by-hop headers dropped and, for a host one of the sandbox's secrets is
// approved for, the secret's values scrubbed from the status line, headers and body (a compressed body decoded
// first). A scrubbed body that arrives whole within one turn of the event loop goes out as one write with its
// exact Content-Length, as it would directly; a longer one streams on chunked, each piece as soon as it is safe.
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline, type Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { createScrubber, type ScrubPair, scrubText } from "./secrets/scrub.js";

export const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** The content codings the proxy can undo to scrub an answer. */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The codings of a Content-Encoding header, in the order they were applied (identity left out). */
export function contentCodings(header: string | undefined): string[] {
  return (header ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

export interface AnswerCounts {
  bytesDown: number;
  /** Values replaced by their placeholders. */
  scrubbed: number;
}

/** What to do with an answer: pass it on, or refuse it because its coding cannot be read to scrub it. */
export function planAnswer(
  answer: IncomingMessage,
  method: string | undefined,
  pairs: readonly ScrubPair[],
): { refuse: string } | { scrubBody: boolean; codings: string[] } {
  const status = answer.statusCode ?? 502;
  const bodiless = method === "HEAD" || status === 204 || status === 304 || status < 200;
  const scrubBody = pairs.length > 0 && !bodiless;
  const codings = scrubBody ? contentCodings(answer.headers["content-encoding"]) : [];
  if (!codings.every((coding) => coding in DECODERS))
    return { refuse: `the answer is encoded ${codings.join(", ")}` };
  return { scrubBody, codings };
}

export function sendAnswer(
  answer: IncomingMessage,
  res: ServerResponse,
  plan: { scrubBody: boolean; codings: string[] },
  pairs: readonly ScrubPair[],
  counts: AnswerCounts,
): void {
  const clean = (text: string) => {
    if (pairs.length === 0) return text;
    const cleaned = scrubText(text, pairs);
    counts.scrubbed += cleaned.count;
    return cleaned.text;
  };
  const named = new Set(
    (answer.headers.connection ?? "")
      .split(",")
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
  const head: string[] = [];
  const raw = answer.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    if (plan.scrubBody && lower === "content-length") continue; // the body may change length
    if (plan.codings.length > 0 && lower === "content-encoding") continue; // the sandbox gets it decoded
    head.push(raw[i]!, clean(raw[i + 1]!));
  }
  const status = answer.statusCode ?? 502;
  const message = clean(answer.statusMessage ?? "");
  if (!plan.scrubBody) {
    res.writeHead(status, message, head);
    answer.on("data", (chunk: Buffer) => {
      counts.bytesDown += chunk.length;
    });
    answer.pipe(res);
    return;
  }
  const decoders = [...plan.codings].reverse().map((coding) => DECODERS[coding]!());
  let body: Readable = answer;
  if (decoders.length > 0) {
    body = decoders.at(-1)!;
    // A body that does not decode is cut off: the sandbox never gets half-scrubbed bytes.
    pipeline([answer, ...decoders] as [Readable, ...Transform[]], (error) => {
      if (error) res.destroy();
    });
  }
  streamScrubbed(body, res, { status, message, head }, createScrubber(pairs), counts);
}

function streamScrubbed(
  body: Readable,
  res: ServerResponse,
  start: { status: number; message: string; head: string[] },
  scrubber: ReturnType<typeof createScrubber>,
  counts: AnswerCounts,
): void {
  let queued: Buffer[] = [];
  let flushing: NodeJS.Immediate | undefined;
  const started = () => {
    if (!res.headersSent) res.writeHead(start.status, start.message, start.head);
  };
  const flush = () => {
    flushing = undefined;
    if (queued.length === 0) return;
    started();
    const out = Buffer.concat(queued);
    queued = [];
    counts.bytesDown += out.length;
    if (!res.write(out)) {
      body.pause();
      res.once("drain", () => body.resume());
    }
  };
  body.on("data", (chunk: Buffer) => {
    const safe = scrubber.push(chunk);
    if (safe.length > 0) queued.push(safe);
    // What arrived together leaves together: the end usually follows in this same turn.
    flushing ??= setImmediate(flush);
  });
  body.once("end", () => {
    clearImmediate(flushing);
    queued.push(scrubber.flush());
    const rest = Buffer.concat(queued);
    queued = [];
    counts.bytesDown += rest.length;
    counts.scrubbed += scrubber.count();
    if (!res.headersSent) {
      res.writeHead(start.status, start.message, [...start.head, "content-length", String(rest.length)]);
    }
    res.end(rest);
  });
  body.once("error", () => res.destroy());
}
