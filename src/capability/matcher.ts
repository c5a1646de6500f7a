// The semantic matcher interface, the built-in deterministic matcher, and the budgeted decision around any
// matcher (reference section 8: 3-second budget, 90% confidence). Only `decideMerge` touches timers.
import type { CapabilityKind } from "./kinds.js";
import type { TargetForm } from "./target.js";

export const MATCHER_BUDGET_MS = 3000;
export const MATCHER_CONFIDENCE = 0.9;

export interface MatchCandidate {
  kind: CapabilityKind;
  target: string;
  targetForm: TargetForm;
  reason: string;
}
export interface MatchExisting extends MatchCandidate {
  requestId: string;
}
export interface MatchQuery {
  candidate: MatchCandidate;
  existing: readonly MatchExisting[];
}
/** The matcher's best answer: the existing request it thinks is the same missing access, and its confidence. */
export interface MatchAnswer {
  requestId: string | null;
  confidence: number;
}
export interface CapabilityMatcher {
  readonly name: string;
  match(query: MatchQuery, signal: AbortSignal): Promise<MatchAnswer>;
}

/** Thrown by a matcher that cannot run (no credentials): never merges, like any other failure. */
export class MatcherUnavailableError extends Error {
  override readonly name = "MatcherUnavailableError";
}

function foldName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/**
 * Deterministic and conservative: only a non-URL resource name equal to another after folding case and
 * punctuation, with the same kind, is the same missing access (0.95). Everything else is 0.
 */
export function matchDeterministically(query: MatchQuery): MatchAnswer {
  const { candidate } = query;
  if (candidate.targetForm !== "name") return { requestId: null, confidence: 0 };
  const folded = foldName(candidate.target);
  const hit = query.existing.find(
    (e) => e.kind === candidate.kind && e.targetForm === "name" && foldName(e.target) === folded,
  );
  return hit ? { requestId: hit.requestId, confidence: 0.95 } : { requestId: null, confidence: 0 };
}

export const builtinMatcher: CapabilityMatcher = {
  name: "builtin",
  match: async (query) => matchDeterministically(query),
};

export const MERGE_OUTCOMES = [
  "merged",
  "no_match",
  "low_confidence",
  "timeout",
  "error",
  "unavailable",
] as const;
export type MergeOutcome = (typeof MERGE_OUTCOMES)[number];
export interface MergeDecision {
  requestId: string | null;
  outcome: MergeOutcome;
  confidence: number | null;
}

/** Pure: whether an answer merges. Only an existing id at confidence >= 0.90 does. */
export function judgeAnswer(query: MatchQuery, answer: MatchAnswer): MergeDecision {
  if (answer.requestId === null)
    return { requestId: null, outcome: "no_match", confidence: answer.confidence };
  if (!query.existing.some((e) => e.requestId === answer.requestId)) {
    return { requestId: null, outcome: "error", confidence: answer.confidence };
  }
  if (!(answer.confidence >= MATCHER_CONFIDENCE)) {
    return { requestId: null, outcome: "low_confidence", confidence: answer.confidence };
  }
  return { requestId: answer.requestId, outcome: "merged", confidence: answer.confidence };
}

/**
 * Asks the matcher within a hard budget. The AbortSignal tells the matcher to stop; the race returns at the
 * deadline even if a matcher ignores its signal. Time-out, error or unavailability never merge.
 */
export async function decideMerge(
  matcher: CapabilityMatcher,
  query: MatchQuery,
  budgetMs: number = MATCHER_BUDGET_MS,
): Promise<MergeDecision> {
  if (query.existing.length === 0) return { requestId: null, outcome: "no_match", confidence: null };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("matcher budget exhausted"));
      resolve("timeout");
    }, budgetMs);
  });
  try {
    const answer = await Promise.race([matcher.match(query, controller.signal), deadline]);
    if (answer === "timeout") return { requestId: null, outcome: "timeout", confidence: null };
    return judgeAnswer(query, answer);
  } catch (error) {
    if (controller.signal.aborted) return { requestId: null, outcome: "timeout", confidence: null };
    const outcome = error instanceof MatcherUnavailableError ? "unavailable" : "error";
    return { requestId: null, outcome, confidence: null };
  } finally {
    clearTimeout(timer);
  }
}
