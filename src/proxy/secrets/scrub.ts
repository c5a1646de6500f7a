// A secret's value appearing in a response is replaced by its placeholder before the sandbox sees it: headers at
// once, bodies as a stream that holds back only the bytes a value could still begin with (so a streamed answer is
// never kept waiting for the next chunk). An approved host may echo what it received, so besides the value itself
// the scrubber looks for the forms an echo commonly takes: percent-encoded (either hex case), JSON-escaped, and the
// exact header values the proxy rewrote (Basic's base64 `user:value` comes back as base64 `user:placeholder`).
// It cannot undo an arbitrary transformation of the value by a host the secret is approved for. Pure.
import type { LeaseSecret } from "../lease/policy.js";

export interface ScrubPair {
  value: Buffer;
  placeholder: Buffer;
  text: string;
  placeholderText: string;
}

/** A header value the proxy changed on its way out (`sent`), and what the sandbox had written (`original`). */
export interface Rewrite {
  sent: string;
  original: string;
}

const jsonInner = (text: string) => JSON.stringify(text).slice(1, -1);

/** The forms in which an echo commonly carries a value, the value itself first. */
export function echoForms(value: string): string[] {
  const percent = encodeURIComponent(value);
  const json = jsonInner(value);
  return [
    value,
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    json,
    json.replace(/\//g, "\\/"),
  ];
}

export function scrubPairs(secrets: readonly LeaseSecret[], rewrites: readonly Rewrite[] = []): ScrubPair[] {
  const byText = new Map<string, string>();
  for (const secret of secrets) {
    if (secret.value.length === 0) continue;
    for (const form of echoForms(secret.value)) if (!byText.has(form)) byText.set(form, secret.placeholder);
  }
  for (const { sent, original } of rewrites) if (sent !== original) byText.set(sent, original);
  // Longest first, so a value that contains another is replaced whole.
  return [...byText]
    .map(([text, placeholderText]) => ({
      text,
      placeholderText,
      value: Buffer.from(text, "utf8"),
      placeholder: Buffer.from(placeholderText, "utf8"),
    }))
    .sort((a, b) => b.value.length - a.value.length);
}

export function scrubText(text: string, pairs: readonly ScrubPair[]): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const pair of pairs) {
    if (!out.includes(pair.text)) continue;
    const parts = out.split(pair.text);
    count += parts.length - 1;
    out = parts.join(pair.placeholderText);
  }
  return { text: out, count };
}

function replaceAll(buffer: Buffer, pairs: readonly ScrubPair[], counter: { count: number }): Buffer {
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

/** How many bytes at the end of `buffer` could be the start of a value: those wait for the next chunk. */
export function pendingTail(buffer: Buffer, pairs: readonly ScrubPair[]): number {
  let keep = 0;
  for (const { value } of pairs) {
    for (let length = Math.min(value.length - 1, buffer.length); length > keep; length--) {
      const from = buffer.length - length;
      if (buffer[from] === value[0] && buffer.compare(value, 0, length, from) === 0) {
        keep = length;
        break;
      }
    }
  }
  return keep;
}

/**
 * Scrubs a body that comes in pieces: `push` returns what can go on now, `flush` the rest at the end. A value split
 * across pieces is still replaced; `count()` says how many were.
 */
export interface Scrubber {
  push(chunk: Buffer): Buffer;
  flush(): Buffer;
  count(): number;
}

export function createScrubber(pairs: readonly ScrubPair[]): Scrubber {
  const counter = { count: 0 };
  let pending: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      const joined = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const replaced = replaceAll(joined, pairs, counter);
      const cut = replaced.length - pendingTail(replaced, pairs);
      pending = replaced.subarray(cut);
      return replaced.subarray(0, cut);
    },
    flush() {
      const rest = pending;
      pending = Buffer.alloc(0);
      return rest;
    },
    count: () => counter.count,
  };
}
