// JSON responses and bodies. Body parse failures name the field path, never the value.
import type { z } from "zod";
import { formatIssuePath } from "../../config/zod-error.js";
import { HEADERS } from "../../transport/wire.js";
import { HttpError, invalidRequest } from "./http-error.js";

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function errorResponse(error: HttpError, requestId: string): Response {
  return json(
    error.status,
    { error: error.error, reason: error.reason, requestId },
    { ...error.headers, [HEADERS.requestId]: requestId },
  );
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function readJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  what: string,
): Promise<z.infer<S>> {
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    throw new HttpError(413, "payload_too_large", `${what} is over 1 MiB`);
  let raw: unknown;
  try {
    raw = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw invalidRequest(`${what} is not valid JSON`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidRequest(`${what}: ${formatIssuePath(issue.path)}: ${issue.message}`);
  }
  return parsed.data;
}
