// Octokit's answers as the domain sees them: a call's expected failures (a 404, a 422) come back as statuses for
// the caller to read, everything else is a CodehostError in the service's words: the API did not answer (network
// failure, timeout or 5xx past the retries), a rate limit whose wait was too long (saying when to try again), or a
// refusal naming the status and GitHub's message. Bodies are checked with zod at the boundary.
import type { z } from "zod";
import { CodehostError } from "../port.js";

type Headers = Record<string, string | number | undefined>;
export interface Answer<T = unknown> {
  status: number;
  data: T;
  headers: Headers;
}

interface RequestErrorLike extends Error {
  status: number;
  request: { method: string; url: string };
  response?: Answer | undefined;
}

const isRequestError = (error: unknown): error is RequestErrorLike =>
  error instanceof Error &&
  typeof (error as { status?: unknown }).status === "number" &&
  typeof (error as { request?: unknown }).request === "object";

const messageOf = (data: unknown) => {
  const message = (data as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : undefined;
};
const header = (headers: Headers, name: string) => {
  const value = headers[name];
  return value === undefined ? undefined : String(value).trim();
};

/** A rate-limit refusal Octokit's throttling gave up waiting on, saying when to try again; else undefined (pure). */
export function rateLimitError(answer: Answer, nowMs: number): CodehostError | undefined {
  if (answer.status !== 403 && answer.status !== 429) return undefined;
  const retryAfter = Number(header(answer.headers, "retry-after"));
  const after = Number.isFinite(retryAfter) && retryAfter > 0 ? nowMs + retryAfter * 1000 : undefined;
  let until: number;
  let which: string;
  if (/\bsecondary rate\b/i.test(messageOf(answer.data) ?? "")) {
    until = after ?? nowMs + 60_000;
    which = "a secondary rate limit";
  } else if (header(answer.headers, "x-ratelimit-remaining") === "0") {
    const reset = Number(header(answer.headers, "x-ratelimit-reset"));
    until = after ?? (Number.isFinite(reset) && reset > 0 ? reset * 1000 : nowMs + 60_000);
    which = "its hourly rate limit";
  } else return undefined;
  return new CodehostError(
    `the code host's API refused the call under ${which}; try again after ${new Date(until).toISOString()}`,
  );
}

/** Any failure of a call to the code host, as a CodehostError. */
export function codehostErrorOf(error: unknown, what: string): CodehostError {
  if (error instanceof CodehostError) return error;
  if (!isRequestError(error) || !error.response || error.status >= 500) {
    const thrown = error instanceof Error ? error : new Error(String(error));
    const cause = thrown.cause instanceof Error ? thrown.cause : thrown;
    const reason =
      isRequestError(error) && error.response
        ? `answered ${error.status}`
        : `${cause.name}: ${cause.message}`;
    const call = isRequestError(error)
      ? `${error.request.method} ${new URL(error.request.url).pathname}`
      : `to ${what}`;
    return new CodehostError(`the code host's API did not answer ${call} (${reason}); try again later`, {
      cause: error,
    });
  }
  const limited = rateLimitError(error.response, Date.now());
  if (limited) return limited;
  const message = messageOf(error.response.data);
  return new CodehostError(
    `the code host refused to ${what} (${error.status}${message ? `: ${message}` : ""})`,
  );
}

/** The HTTP status of the code host's refusal, or undefined when there was no answer. */
export const statusOf = (error: unknown): number | undefined =>
  isRequestError(error) && error.response ? error.status : undefined;

/** Runs an Octokit call: its answer, or the answer of a refusal in `expected`; any other failure throws. */
export async function settle<T>(
  what: string,
  call: () => Promise<Answer<T>>,
  expected: readonly number[] = [],
): Promise<Answer<T> | Answer<unknown>> {
  try {
    return await call();
  } catch (error) {
    const status = statusOf(error);
    if (status !== undefined && expected.includes(status)) return (error as RequestErrorLike).response!;
    throw codehostErrorOf(error, what);
  }
}

/** `data` checked against `schema`: a body of another shape is a CodehostError, not a crash later. */
export function readData<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues[0]?.path.join(".") || "its body";
  throw new CodehostError(`the code host's answer to "${what}" is not what its API documents (at ${where})`);
}

/** Whether a Link header (RFC 8288) names a next page. */
export const hasNextPage = (link: unknown): boolean =>
  String(link ?? "")
    .split(",")
    .some((entry) => /;\s*rel="?next"?/.test(entry));
