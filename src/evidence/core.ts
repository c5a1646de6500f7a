// Shared types of the sanitiser and its stream wrapper.
import type { ScanEngine } from "./candidate-scan.js";
import type { GramIndex } from "./gram-index.js";

export type RedactionCounts = Record<string, number>;

export interface SanitiserCore {
  index: GramIndex;
  lookBehind: number;
  engine: ScanEngine;
}
