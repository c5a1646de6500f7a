// The one place the Dockerfile engine gets its sanitiser: the evidence area's, fed the secrets in scope.
import { createSanitiser, type KnownSecret, type SanitiserStream } from "../evidence/index.js";

export interface OutputSanitiser {
  sanitise(text: string): { text: string; redactions: number };
  stream(): SanitiserStream;
}

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

export function createOutputSanitiser(secrets: readonly KnownSecret[]): OutputSanitiser {
  const sanitiser = createSanitiser({ secrets });
  return {
    sanitise(text) {
      const result = sanitiser.sanitise(text);
      return { text: result.text, redactions: total(result.redactions) };
    },
    stream: () => sanitiser.stream(),
  };
}

export function countRedactions(counts: Record<string, number>): number {
  return total(counts);
}
