// createSanitiser: one pass that removes control characters, known secret values in their encodings and
// secret-shaped tokens, reporting counts by kind and never a value.
import { applyRanges, mergeHits } from "./apply-hits.js";
import type { ScanEngine } from "./candidate-scan.js";
import { ANSI_KIND, CONTROL_KIND, stripControls } from "./control-chars.js";
import { DETECTORS } from "./detectors.js";
import { findHits } from "./find-hits.js";
import { buildGramIndex } from "./gram-index.js";
import { encodeSecretForms, MIN_SECRET_LENGTH } from "./secret-forms.js";
import { createSanitiserStream, type SanitiserStream } from "./stream.js";

export interface KnownSecret {
  /** The variable's name; the marker is `[REDACTED:<name>]`. Never part of the value. */
  name: string;
  value: string;
}

export interface SanitiserOptions {
  secrets?: readonly KnownSecret[];
  /** Recognise token formats by pattern (default true). */
  patterns?: boolean;
  /** Characters a stream holds back so a match split across chunks is still found (default 512). */
  lookBehind?: number;
  /**
   * The candidate scan's engine: "wasm" (default; falls back to "js" where WebAssembly is unavailable) or
   * "js". Both find the same hits.
   */
  engine?: ScanEngine;
}

import type { RedactionCounts, SanitiserCore } from "./core.js";

export type { RedactionCounts, SanitiserCore };

export interface SanitisedText {
  text: string;
  redactions: RedactionCounts;
}

export interface Sanitiser {
  sanitise(text: string): SanitisedText;
  stream(): SanitiserStream;
  /** Known values ignored because they are shorter than MIN_SECRET_LENGTH characters (names only). */
  readonly ignoredShortSecrets: readonly string[];
}

/** Strips control characters, finds hits and returns the sanitised text with counts (shared with streams). */
export function sanitiseWith(core: SanitiserCore, text: string, counts: RedactionCounts): string {
  // Coloured output is common: with an ESC in sight, strip first and scan once.
  const scan = text.indexOf("\x1b") === -1 ? findHits(core.index, text, core.engine) : undefined;
  if (scan !== undefined && !scan.control) return applyRanges(text, mergeHits(scan.hits), counts);
  const stripped = stripControls(core.index, text, core.engine);
  if (stripped.ansi > 0) counts[ANSI_KIND] = (counts[ANSI_KIND] ?? 0) + stripped.ansi;
  if (stripped.control > 0) counts[CONTROL_KIND] = (counts[CONTROL_KIND] ?? 0) + stripped.control;
  const hits =
    scan !== undefined && stripped.text === text
      ? scan.hits
      : findHits(core.index, stripped.text, core.engine).hits;
  return applyRanges(stripped.text, mergeHits(hits), counts);
}

export function createSanitiser(options: SanitiserOptions = {}): Sanitiser {
  const literals: { label: string; form: string; base64: boolean }[] = [];
  const ignoredShortSecrets: string[] = [];
  for (const secret of options.secrets ?? []) {
    if (secret.value.length < MIN_SECRET_LENGTH) {
      ignoredShortSecrets.push(secret.name);
      continue;
    }
    for (const form of encodeSecretForms(secret.value)) {
      literals.push({ label: secret.name, form: form.text, base64: form.base64 });
    }
  }
  const index = buildGramIndex(literals, options.patterns === false ? [] : DETECTORS);
  const core: SanitiserCore = {
    index,
    lookBehind: Math.max(options.lookBehind ?? 512, index.longestLiteral + 8),
    engine: options.engine ?? "wasm",
  };
  return {
    ignoredShortSecrets,
    sanitise(text) {
      const redactions: RedactionCounts = {};
      return { text: sanitiseWith(core, text, redactions), redactions };
    },
    stream: () => createSanitiserStream(core),
  };
}
