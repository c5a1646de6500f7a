// Deciding whether a delivery is the platform's: the signature over the exact raw bytes, compared in constant
// time, and (for the tracker) the body's timestamp within the replay window, both by @linear/sdk's verifier.
// The code host's signature stays ours, not @octokit/webhooks' verify: it checks a string body and compares the
// header as text, so an upper-case hex signature and a body signed over bytes that are not UTF-8 would be refused
// where the receiver accepts them (test/unit/server/surfaces/webhooks/verify.test.ts).
import { createHmac, timingSafeEqual } from "node:crypto";
import { checkLinearDelivery } from "../../adapters/tracker/linear/webhook-signature.js";
import { CODEHOST_SIGNATURE_PREFIX, REJECTIONS, type Rejection } from "./wire.js";

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

/**
 * Linear's scheme, decided by @linear/sdk's verifier: `Linear-Signature: <hex>`, and the signed body's
 * `webhookTimestamp` within a minute, whose verdict the receiver applies after its own checks of the body.
 */
export async function verifyTrackerSignature(
  secret: string,
  raw: Uint8Array,
  header: string | undefined,
): Promise<Verdict & { fresh: Verdict }> {
  const stale = { ok: false, why: REJECTIONS.staleTimestamp } as const;
  if (!header) return { ok: false, why: REJECTIONS.missingSignature, fresh: stale };
  const check = await checkLinearDelivery(secret, raw, header);
  if (check === "bad_signature") return { ok: false, why: REJECTIONS.badSignature, fresh: stale };
  // A body that is not JSON has no timestamp; the receiver refuses it as not_json first.
  return { ok: true, fresh: check === "verified" ? { ok: true } : stale };
}

/** Signs like the platforms do (the test fakes and the docs' examples use it). */
export const signBody = (secret: string, raw: Uint8Array | string): string =>
  createHmac("sha256", secret).update(raw).digest("hex");
