// The HTTP adapter to a model endpoint: POST {candidate, existing} as JSON, expect {requestId, confidence}.
// Missing credentials, a non-2xx answer or a malformed body throw, which `decideMerge` turns into "no merge".
import * as z from "zod";
import {
  type CapabilityMatcher,
  type MatchAnswer,
  MatcherUnavailableError,
  type MatchQuery,
} from "./matcher.js";

export const MatcherAnswerSchema = z.object({
  requestId: z.string().nullable(),
  confidence: z.number().min(0).max(1),
});

export interface HttpMatcherOptions {
  url: string;
  /** Sent as `Authorization: Bearer`; when absent the matcher is unavailable and never called. */
  token: string | undefined;
  fetch?: typeof globalThis.fetch;
}

export function createHttpMatcher(options: HttpMatcherOptions): CapabilityMatcher {
  const doFetch = options.fetch ?? globalThis.fetch;
  return {
    name: "http",
    async match(query: MatchQuery, signal: AbortSignal): Promise<MatchAnswer> {
      if (!options.token) throw new MatcherUnavailableError("no matcher credentials configured");
      const response = await doFetch(options.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${options.token}` },
        body: JSON.stringify(query),
        signal,
      });
      if (!response.ok) throw new Error(`matcher answered HTTP ${response.status}`);
      return MatcherAnswerSchema.parse(await response.json());
    },
  };
}
