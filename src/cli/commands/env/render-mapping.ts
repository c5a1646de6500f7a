// Human output shared by `baton env apply` and `baton env show`: the name mapping, never a value.
import type { AppliedVariable } from "../../../activation/apply-overlay.js";
import { countOf } from "../../../format/index.js";

export function renderNameMapping(variables: readonly AppliedVariable[]): string[] {
  const repoWidth = Math.max(0, ...variables.map((v) => v.repository.length));
  const nameWidth = Math.max(0, ...variables.map((v) => v.name.length));
  return variables.map(
    (v) => `  ${v.repository.padEnd(repoWidth)}  ${v.name.padEnd(nameWidth)} -> ${v.assigned}  (${v.source})`,
  );
}

export function describeCount(revision: number, count: number): string {
  return `overlay revision ${revision}, ${countOf(count, "variable")}`;
}
