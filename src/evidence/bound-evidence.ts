// boundEvidence: shrinks a record's JSON to a byte limit. The output head and tail go first, then long
// strings and lists; the outcome, exit status, signal and timings are never dropped.
import { DEFAULT_EVIDENCE_LIMIT_BYTES, type EvidenceRecord } from "./record.js";

const encoder = new TextEncoder();
const sizeOf = (record: EvidenceRecord) => encoder.encode(JSON.stringify(record)).length;

/** Cuts a string to at most `length` UTF-16 units without splitting a surrogate pair. */
function cut(text: string, length: number, keep: "start" | "end"): string {
  if (text.length <= length) return text;
  let piece =
    keep === "start" ? text.slice(0, Math.max(0, length)) : text.slice(text.length - Math.max(0, length));
  if (keep === "start" && /[\ud800-\udbff]$/.test(piece)) piece = piece.slice(0, -1);
  if (keep === "end" && /^[\udc00-\udfff]/.test(piece)) piece = piece.slice(1);
  return piece;
}

const ELLIPSIS = "…";

/** Bytes a UTF-16 unit takes inside a JSON string (surrogates counted at the escaped worst case). */
function jsonUnitBytes(c: number): number {
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x20) return c === 0x0a || c === 0x09 || c === 0x0d || c === 0x08 || c === 0x0c ? 2 : 6;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdfff) return 6;
  return 3;
}

function jsonBytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) bytes += jsonUnitBytes(text.charCodeAt(i));
  return bytes;
}

/** The longest piece of `text`, from its start or its end, whose JSON form fits `budget` bytes. */
function fitJson(text: string, budget: number, keep: "start" | "end"): string {
  let used = 0;
  let units = 0;
  while (units < text.length) {
    const at = keep === "start" ? units : text.length - 1 - units;
    const bytes = jsonUnitBytes(text.charCodeAt(at));
    if (used + bytes > budget) break;
    used += bytes;
    units++;
  }
  return cut(text, units, keep);
}

function shortenOutput(record: EvidenceRecord, limit: number): void {
  const output = record.output;
  const { head, tail } = output;
  output.truncated = true;
  output.head = "";
  output.tail = "";
  let budget = limit - sizeOf(record);
  // The tail usually says why a script failed, so it gets two thirds of what is left.
  for (let round = 0; round < 8 && budget > 0; round++) {
    output.head = fitJson(head, Math.floor(budget / 3), "start");
    output.tail = fitJson(tail, budget - jsonBytes(output.head), "end");
    if (sizeOf(record) <= limit) return;
    budget = Math.floor(budget * 0.9);
  }
  output.head = "";
  output.tail = "";
}

function shortenRest(record: EvidenceRecord): void {
  record.trimmed = true;
  if (record.runnerError !== null) record.runnerError = cut(record.runnerError, 400, "start") + ELLIPSIS;
  record.readiness.note = cut(record.readiness.note, 200, "start");
  for (const check of record.readiness.checks) {
    check.target = cut(check.target, 200, "start");
    check.detail = cut(check.detail, 200, "start");
  }
  const names = Object.keys(record.redactions);
  if (names.length > 50) {
    const kept: Record<string, number> = {};
    let other = 0;
    names.forEach((name, i) => {
      if (i < 49) kept[name] = record.redactions[name] as number;
      else other += record.redactions[name] as number;
    });
    kept.other = (kept.other ?? 0) + other;
    record.redactions = kept;
  }
}

function lastResort(record: EvidenceRecord, limit: number): void {
  for (const check of record.readiness.checks) {
    check.target = cut(check.target, 60, "start");
    check.detail = cut(check.detail, 60, "start");
  }
  if (record.runnerError !== null) record.runnerError = cut(record.runnerError, 100, "start");
  record.redactions = { total: Object.values(record.redactions).reduce((a, b) => a + b, 0) };
  record.readiness.note = cut(record.readiness.note, 80, "start");
  if (record.repository !== null) record.repository = cut(record.repository, 200, "start");
  if (record.handoffVersionId !== null) record.handoffVersionId = cut(record.handoffVersionId, 100, "start");
  record.runtime.shell = record.runtime.shell === null ? null : cut(record.runtime.shell, 80, "start");
  const total = record.readiness.checks.length;
  while (record.readiness.checks.length > 0 && sizeOf(record) > limit) record.readiness.checks.pop();
  if (record.readiness.checks.length < total) {
    record.readiness.note = `${record.readiness.checks.length} of ${total} check results kept to stay within the bound`;
  }
}

/**
 * Returns a copy of `record` whose JSON is at most `limitBytes` UTF-8 bytes (default 32 KiB), trimming the
 * output first. Limits below 2 KiB are raised to 2 KiB: that always holds the fixed fields.
 */
export function boundEvidence(
  record: EvidenceRecord,
  limitBytes = DEFAULT_EVIDENCE_LIMIT_BYTES,
): EvidenceRecord {
  const limit = Math.max(2048, limitBytes);
  const copy = structuredClone(record);
  if (sizeOf(copy) <= limit) return copy;
  shortenOutput(copy, limit);
  if (sizeOf(copy) <= limit) return copy;
  shortenRest(copy);
  if (sizeOf(copy) <= limit) return copy;
  lastResort(copy, limit);
  return copy;
}

export function evidenceSize(record: EvidenceRecord): number {
  return sizeOf(record);
}
