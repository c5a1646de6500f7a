// @linear/sdk (pinned, issue 35 16b), loaded on first use: its client is some 3 MB of generated code that only a
// service with a Linear tracker ever calls, so neither `baton serve` starting nor any client command loads it
// (test/integration/tracker/sdk-loading.test.ts). Types are imported statically: they cost nothing at run time.
import type * as LinearSdk from "@linear/sdk";

export type { LinearError } from "@linear/sdk";

let loading: Promise<typeof LinearSdk> | undefined;

export function loadLinearSdk(): Promise<typeof LinearSdk> {
  loading ??= import("@linear/sdk");
  return loading;
}
