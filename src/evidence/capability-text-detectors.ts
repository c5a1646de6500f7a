// Pure detectors for text that must never be stored in a capability request: secret-looking values and raw
// log output. The sanitiser's token detectors (looksLikeSecret) come first; the patterns here add what a
// refusal can afford to be stricter about (generic high-entropy words, key=value assignments).
import { looksLikeSecret } from "./looks-like-secret.js";

const KNOWN_TOKEN_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bglpat-[A-Za-z0-9_-]{16,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\bsk[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{16,}/,
  /\bnpm_[A-Za-z0-9]{30,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bAIza[0-9A-Za-z_-]{30,}/,
  /\bbtn_[A-Za-z0-9_-]{8,}/,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
  /\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}/i,
  // `password=hunter22`, `token: s3cr3tvalue`: an assignment whose value has a digit or is long.
  /\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)\s*[=:]\s*(?:(?=\S*\d)\S{6,}|\S{16,})/i,
];

function shannonBitsPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** A long run that mixes upper case, lower case and digits with high entropy looks like a generated secret. */
function looksLikeRandomToken(word: string): boolean {
  if (word.length < 20) return false;
  if (!/[A-Z]/.test(word) || !/[a-z]/.test(word) || !/[0-9]/.test(word)) return false;
  return shannonBitsPerChar(word) >= 3.5;
}

/** True when the text contains something shaped like a credential, key or token. */
export function looksLikeSecretText(text: string): boolean {
  if (looksLikeSecret(text)) return true;
  if (KNOWN_TOKEN_PATTERNS.some((pattern) => pattern.test(text))) return true;
  return text.split(/[^A-Za-z0-9+/=_-]+/).some(looksLikeRandomToken);
}

const LOG_MARKERS: readonly RegExp[] = [
  /^\s*at\s+\S+.*\(.*:\d+:\d+\)\s*$/m, // JavaScript stack frame
  /^\s*File ".*", line \d+/m, // Python traceback
  /\bTraceback \(most recent call last\)/,
  /\bnpm (?:ERR!|error)\s/,
  /^\s*\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}/m, // timestamped log line
  /^\s*\[(?:ERROR|WARN|WARNING|INFO|DEBUG|TRACE)\]/m,
  /\bHTTP\/\d(?:\.\d)? \d{3}\b/,
  /^\s*[<>] [A-Za-z-]+: /m, // curl -v header dump
  /\x1b\[[0-9;]*m/, // terminal colour codes
];

/** True when the text looks like pasted command output rather than a short description. */
export function looksLikeRawLog(text: string): boolean {
  if (text.split(/\r?\n/).length > 3) return true;
  return LOG_MARKERS.some((pattern) => pattern.test(text));
}
