// Whether a delivery is Linear's, decided by @linear/sdk's own verifier (LinearWebhookClient.verify, pinned): the
// hex HMAC-SHA256 of the raw body in `Linear-Signature`, then the signed body's `webhookTimestamp` within a minute
// of now. Loaded on the first delivery, like the client (sdk.ts). The SDK says which check failed only by
// throwing; what it throws after the signature matched is told apart, and anything else counts as a bad signature.
export type LinearDeliveryCheck = "verified" | "bad_signature" | "stale_timestamp" | "not_json";

let loading: Promise<typeof import("@linear/sdk/webhooks")> | undefined;

export async function checkLinearDelivery(
  secret: string,
  raw: Uint8Array,
  signature: string,
): Promise<LinearDeliveryCheck> {
  loading ??= import("@linear/sdk/webhooks");
  const { LinearWebhookClient } = await loading;
  try {
    return new LinearWebhookClient(secret).verify(Buffer.from(raw), signature) ? "verified" : "bad_signature";
  } catch (error) {
    // Thrown once the signature matched: its JSON.parse of the body, or its timestamp check.
    if (error instanceof SyntaxError) return "not_json";
    if (error instanceof Error && /^(Missing|Invalid) webhook timestamp$/.test(error.message))
      return "stale_timestamp";
    return "bad_signature";
  }
}
