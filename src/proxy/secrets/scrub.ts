// A secret's value appearing in a response is replaced by its placeholder before the sandbox sees it: headers at
// once, bodies as a stream that holds back just enough bytes to catch a value split across chunks.
import { Transform, type TransformCallback } from "node:stream";
import type { LeaseSecret } from "../lease/policy.js";

interface Pair {
  value: Buffer;
  placeholder: Buffer;
}

export function scrubPairs(secrets: readonly LeaseSecret[]): Pair[] {
  // Longest first, so a value that contains another is replaced whole.
  return secrets
    .filter((s) => s.value.length > 0)
    .map((s) => ({ value: Buffer.from(s.value, "utf8"), placeholder: Buffer.from(s.placeholder, "utf8") }))
    .sort((a, b) => b.value.length - a.value.length);
}

export function scrubText(text: string, pairs: readonly Pair[]): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const pair of pairs) {
    const value = pair.value.toString("utf8");
    if (!out.includes(value)) continue;
    const parts = out.split(value);
    count += parts.length - 1;
    out = parts.join(pair.placeholder.toString("utf8"));
  }
  return { text: out, count };
}

function replaceAll(buffer: Buffer, pairs: readonly Pair[], counter: { count: number }): Buffer {
  let out: Buffer = buffer;
  for (const pair of pairs) {
    let at = out.indexOf(pair.value);
    if (at === -1) continue;
    const pieces: Buffer[] = [];
    let from = 0;
    while (at !== -1) {
      pieces.push(out.subarray(from, at), pair.placeholder);
      counter.count += 1;
      from = at + pair.value.length;
      at = out.indexOf(pair.value, from);
    }
    pieces.push(out.subarray(from));
    out = Buffer.concat(pieces);
  }
  return out;
}

/** A body transform; `count()` says how many values it replaced. */
export function createScrubStream(pairs: readonly Pair[]): Transform & { count(): number } {
  const keep = Math.max(0, ...pairs.map((p) => p.value.length - 1));
  const counter = { count: 0 };
  let pending: Buffer = Buffer.alloc(0);
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      const joined = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const replaced = replaceAll(joined, pairs, counter);
      // Whatever a value could still start in stays back until the next chunk (or the end).
      const cut = Math.max(0, replaced.length - keep);
      pending = replaced.subarray(cut);
      done(null, replaced.subarray(0, cut));
    },
    flush(done: TransformCallback) {
      done(null, pending);
    },
  });
  return Object.assign(stream, { count: () => counter.count });
}
