// The target stage's steps in order (with the stages it continues from first), each with a chained digest.
import { createHash } from "node:crypto";
import { parseDockerfile } from "./parse.js";
import {
  type ResolvedDockerfile,
  type ResolvedStage,
  type ResolveOptions,
  resolveDockerfile,
} from "./resolve.js";
import type { DockerfilePlan, PlanStep } from "./types.js";

function stageChain(resolved: ResolvedDockerfile): ResolvedStage[] {
  const byName = new Map<string, ResolvedStage>();
  for (const stage of resolved.stages) if (!byName.has(stage.name)) byName.set(stage.name, stage);
  const chain: ResolvedStage[] = [];
  for (let stage: ResolvedStage | undefined = resolved.target; stage; ) {
    chain.push(stage);
    const parent: string | null = stage.fromStage;
    stage = parent === null ? undefined : byName.get(parent);
  }
  return chain.reverse();
}

function digestStep(previous: string, step: Omit<PlanStep, "index" | "digest">): string {
  const hash = createHash("sha256");
  hash.update(previous);
  hash.update("\0");
  hash.update(
    JSON.stringify([
      step.instruction,
      step.action,
      step.run ?? null,
      step.env ?? null,
      step.arg ?? null,
      step.workdir ?? null,
      step.shell ?? null,
    ]),
  );
  return hash.digest("hex");
}

export function planResolved(resolved: ResolvedDockerfile): DockerfilePlan {
  const steps: PlanStep[] = [];
  let previous = createHash("sha256").update(JSON.stringify(resolved.baseEnv)).digest("hex");
  for (const stage of stageChain(resolved)) {
    for (const step of stage.steps) {
      previous = digestStep(previous, step);
      steps.push({ ...step, index: steps.length + 1, digest: previous });
    }
  }
  return {
    target: resolved.target.name,
    stages: resolved.stages.map((s) => ({ name: s.name, base: s.base, fromStage: s.fromStage })),
    steps,
    environment: [...resolved.target.imageEnv].map(([name, value]) => ({ name, value })),
    unusedBuildArgs: resolved.unusedBuildArgs,
  };
}

/** Parses, resolves and plans Dockerfile text. Throws InputError naming the line for anything malformed. */
export function planDockerfile(text: string, options: ResolveOptions = {}): DockerfilePlan {
  return planResolved(resolveDockerfile(parseDockerfile(text), options));
}
