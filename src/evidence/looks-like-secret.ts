// Detectors for secret-looking text, for callers that must refuse such text rather than redact it
// (e.g. capability requests).
import { mergeHits } from "./apply-hits.js";
import { DETECTORS } from "./detectors.js";
import { findHits } from "./find-hits.js";
import { buildGramIndex, type GramIndex } from "./gram-index.js";

let patternIndex: GramIndex | undefined;

function getPatternIndex(): GramIndex {
  patternIndex ??= buildGramIndex([], DETECTORS);
  return patternIndex;
}

/** The kinds of secret-shaped tokens in `text` (e.g. `github_token`, `url_password`), each once, sorted. */
export function findSecretKinds(text: string): string[] {
  const kinds = new Set(mergeHits(findHits(getPatternIndex(), text).hits).map((range) => range.label));
  return [...kinds].sort();
}

/** True when `text` holds something shaped like a token, key, password or credential. */
export function looksLikeSecret(text: string): boolean {
  return findHits(getPatternIndex(), text).hits.length > 0;
}
