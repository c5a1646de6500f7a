// Deciding whether a delivery is the platform's: the signature over the exact raw bytes, compared in constant
// time, and (for the tracker) the body's timestamp within the replay window. Pure: the clock is passed in.
// Not @octokit/webhooks' verify: it checks a string body and compares the header as text, so an upper-case hex
// signature and a body signed over bytes that are not UTF-8 would be refused where the receiver accepts them
// (test/unit/server/surfaces/webhooks/verify.test.ts), and it is asynchronous for no gain here.
import { createHmac, timingSafeEqual } from "node:crypto";
import { CODEHOST_SIGNATURE_PREFIX, REJECTIONS, type Rejection, WEBHOOK_LIMITS } from "./wire.js";

export type Verdict = { ok: true } | { ok: false; why: Rejection };

const HEX = /^[0-9a-f]+$/i;

const hmacHex = (secret: string, raw: Uint8Array): Buffer =>
  createHmac("sha256", secret).update(raw).digest();

/** Whether `given` (hex) is the HMAC-SHA256 of `raw` under `secret`; equal-length buffers only. */
function matches(secret: string, raw: Uint8Array, givenHex: string): boolean {
  if (!HEX.test(givenHex) || givenHex.length !== 64) return false;
  const expected = hmacHex(secret, raw);
  const given = Buffer.from(givenHex, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** GitHub's scheme: `X-Hub-Signature-256: sha256=<hex>`. */
export function verifyCodehostSignature(
  secret: string,
  raw: Uint8Array,
  header: string | undefined,
): Verdict {
  if (!header) return { ok: false, why: REJECTIONS.missingSignature };
  if (!header.startsWith(CODEHOST_SIGNATURE_PREFIX)) return { ok: false, why: REJECTIONS.badSignature };
  return matches(secret, raw, header.slice(CODEHOST_SIGNATURE_PREFIX.length))
    ? { ok: true }
    : { ok: false, why: REJECTIONS.badSignature };
}

/** Linear's scheme: `Linear-Signature: <hex>`. */
export function verifyTrackerSignature(secret: string, raw: Uint8Array, header: string | undefined): Verdict {
  if (!header) return { ok: false, why: REJECTIONS.missingSignature };
  return matches(secret, raw, header) ? { ok: true } : { ok: false, why: REJECTIONS.badSignature };
}

/** Linear's `webhookTimestamp` (epoch ms) within the window either side of now. */
export function checkTrackerTimestamp(timestampMs: unknown, nowMs: number): Verdict {
  if (typeof timestampMs !== "number" || !Number.isFinite(timestampMs))
    return { ok: false, why: REJECTIONS.staleTimestamp };
  return Math.abs(nowMs - timestampMs) <= WEBHOOK_LIMITS.trackerTimestampSkewMs
    ? { ok: true }
    : { ok: false, why: REJECTIONS.staleTimestamp };
}

/** Signs like the platforms do (the test fakes and the docs' examples use it). */
export const signBody = (secret: string, raw: Uint8Array | string): string =>
  createHmac("sha256", secret).update(raw).digest("hex");
