// Resolves a parsed Dockerfile the way BuildKit evaluates it: global and stage ARG scope, build args, ENV
// (each pair expanded against the environment before the instruction), stages and their inheritance. Pure.
import { posix } from "node:path";
import { type ExpansionContext, expandAt } from "./expand.js";
import {
  createExpansionBudget,
  MAX_COPIED_VARIABLES,
  MAX_VALUE_LENGTH,
  valueTooLongError,
} from "./limits.js";
import { type Instruction, lineError, type ParsedDockerfile } from "./parse.js";
import {
  type CarriedEnvironment,
  carryStep,
  describeSkip,
  refuseNul,
  resolveRun,
  shellSize,
} from "./resolve-run.js";
import type { PlanStep } from "./types.js";

export interface ResolveOptions {
  target?: string;
  buildArgs?: Readonly<Record<string, string>>;
  /** The environment a fresh stage starts from: in a build the base image's, here the sandbox's (PATH). */
  baseEnv?: Readonly<Record<string, string>>;
  platform?: { os: string; arch: string; variant?: string };
}

export type UnsealedStep = Omit<PlanStep, "index" | "digest">;

export interface ResolvedStage {
  name: string;
  base: string;
  fromStage: string | null;
  steps: UnsealedStep[];
  /** ENV and ARG values in force at the end of the stage (BuildKit's state environment). */
  env: Map<string, string>;
  /** Characters in `env` (names, values and two per variable), kept as `env` changes. */
  envSize: number;
  /** The last snapshot of `env` handed to a RUN step; dropped whenever `env` changes. */
  envSnapshot?: Record<string, string> | undefined;
  /** ENV only: what the image would carry. */
  imageEnv: Map<string, string>;
  workdir: string | null;
  shell: string[];
}

export interface ResolvedDockerfile {
  baseEnv: Record<string, string>;
  stages: ResolvedStage[];
  target: ResolvedStage;
  unusedBuildArgs: string[];
}

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const STAGE_NAME = /^[a-z][a-z0-9-_.]*$/;

export function platformArgs(platform: ResolveOptions["platform"]): Map<string, string> {
  const os = platform?.os ?? "linux";
  const arch = platform?.arch ?? "amd64";
  const variant = platform?.variant ?? "";
  const full = `${os}/${arch}${variant ? `/${variant}` : ""}`;
  return new Map([
    ["TARGETPLATFORM", full],
    ["TARGETOS", os],
    ["TARGETARCH", arch],
    ["TARGETVARIANT", variant],
    ["BUILDPLATFORM", full],
    ["BUILDOS", os],
    ["BUILDARCH", arch],
    ["BUILDVARIANT", variant],
  ]);
}

function instructionText(instruction: Instruction): string {
  const flags = instruction.flags.length > 0 ? `${instruction.flags.join(" ")} ` : "";
  const text = `${instruction.keyword.toUpperCase()} ${flags}${instruction.rest}`.trim();
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

function splitArg(word: string): { name: string; value: string | undefined } {
  const at = word.indexOf("=");
  return at < 0 ? { name: word, value: undefined } : { name: word.slice(0, at), value: word.slice(at + 1) };
}

export function resolveDockerfile(
  parsed: ParsedDockerfile,
  options: ResolveOptions = {},
): ResolvedDockerfile {
  const context: ExpansionContext = { escape: parsed.escape, budget: createExpansionBudget() };
  const carried: CarriedEnvironment = { characters: 0 };
  let copied = 0;
  const buildArgs = new Map(Object.entries(options.buildArgs ?? {}));
  const usedBuildArgs = new Set<string>();
  const builtins = platformArgs(options.platform);
  const globalArgs = new Map<string, string | undefined>();
  const stages: ResolvedStage[] = [];
  // Stages by name: a lookup per FROM stays constant-time however many stages there are.
  const byName = new Map<string, ResolvedStage>();
  let stage: ResolvedStage | undefined;

  // What FROM and global ARG lines expand with: the builtins, then every global ARG that has a value. Kept up to
  // date as global ARGs are declared, rather than rebuilt for each line (thousands of them made it quadratic).
  const meta = new Map(builtins);
  const setGlobalArg = (name: string, value: string | undefined) => {
    globalArgs.set(name, value);
    if (value !== undefined) meta.set(name, value);
    else if (builtins.has(name)) meta.set(name, builtins.get(name)!);
    else meta.delete(name);
  };

  for (const instruction of parsed.instructions) {
    const line = instruction.startLine;
    const base = { stage: "", line, endLine: instruction.endLine, instruction: instructionText(instruction) };
    const keyword = instruction.keyword;

    if (keyword === "from") {
      stage = startStage(instruction, stages, byName, meta, context, options.baseEnv);
      // A stage continuing another starts with a copy of every value in force there: it carries them too.
      if (stage.fromStage !== null) {
        carryStep(carried, stage.envSize, line);
        copied += stage.env.size;
        if (copied > MAX_COPIED_VARIABLES) {
          throw lineError(
            line,
            `the stages up to here copy more than ${MAX_COPIED_VARIABLES} variables from the stages they continue; ` +
              "use fewer variables or fewer stages",
          );
        }
      }
      stages.push(stage);
      // The first stage of a name is the one FROM and --target find (names repeat only as stage-N).
      if (!byName.has(stage.name)) byName.set(stage.name, stage);
      const notes = [
        stage.fromStage === null
          ? `base image ${stage.base} is not re-created: the running sandbox stands in for it`
          : `continues from stage ${stage.fromStage}, whose steps come first in this plan`,
      ];
      for (const flag of instruction.flags)
        notes.push(`FROM ${flag} is not applied: steps run on this sandbox`);
      stage.steps.push({ ...base, stage: stage.name, action: "skipped", notes });
      continue;
    }

    if (keyword === "arg") {
      const env = stage ? stage.env : meta;
      const resolved: { name: string; value: string | null }[] = [];
      // Every word expands against the values as they were before this line: global ones are set after it.
      const globals: [string, string | undefined][] = [];
      for (const word of instruction.args.values) {
        const { name: rawName, value: rawDefault } = splitArg(word);
        const name = expandAt(rawName, env, line, context);
        const fallback = rawDefault === undefined ? undefined : expandAt(rawDefault, env, line, context);
        let value: string | undefined;
        if (buildArgs.has(name)) {
          value = buildArgs.get(name);
          usedBuildArgs.add(name);
        } else if (fallback !== undefined) value = fallback;
        else if (stage && globalArgs.has(name)) value = globalArgs.get(name);
        else if (stage && builtins.has(name)) value = builtins.get(name);
        if (stage) {
          if (value !== undefined) {
            stage.envSnapshot = undefined;
            setVariable(stage, name, value);
          }
        } else {
          globals.push([name, value]);
        }
        resolved.push({ name, value: value ?? null });
      }
      for (const [name, value] of globals) setGlobalArg(name, value);
      if (stage) {
        stage.steps.push({ ...base, stage: stage.name, action: "arg", notes: [], arg: resolved });
      }
      continue;
    }

    if (!stage) throw lineError(line, `${keyword.toUpperCase()} comes before the first FROM; only ARG may`);
    stage.steps.push(resolveInStage(instruction, stage, context, carried, base));
  }

  if (!stage) throw lineError(1, "the Dockerfile has no FROM instruction");
  let target = stages[stages.length - 1]!;
  if (options.target !== undefined) {
    const wanted = options.target.toLowerCase();
    const found = byName.get(wanted);
    if (!found) {
      const names = stages.map((s) => s.name).join(", ");
      throw lineError(1, `target stage "${options.target}" could not be found; stages are: ${names}`);
    }
    target = found;
  }
  const unusedBuildArgs = [...buildArgs.keys()].filter((name) => !usedBuildArgs.has(name));
  return { baseEnv: { ...(options.baseEnv ?? { PATH: DEFAULT_PATH }) }, stages, target, unusedBuildArgs };
}

function startStage(
  instruction: Instruction,
  stages: readonly ResolvedStage[],
  byName: ReadonlyMap<string, ResolvedStage>,
  meta: ReadonlyMap<string, string>,
  context: ExpansionContext,
  baseEnv: ResolveOptions["baseEnv"],
): ResolvedStage {
  const line = instruction.startLine;
  const values = instruction.args.values;
  const hasAlias = values.length === 3 && values[1]!.toLowerCase() === "as";
  if (values.length !== 1 && !hasAlias) {
    throw lineError(line, "FROM requires either one or three arguments: FROM <image> [AS <name>]");
  }
  const image = expandAt(values[0]!, meta, line, context);
  if (image === "") throw lineError(line, "FROM names no base image after expansion");
  let name = `stage-${stages.length}`;
  if (hasAlias) {
    name = expandAt(values[2]!, meta, line, context).toLowerCase();
    if (!STAGE_NAME.test(name)) throw lineError(line, `invalid name for build stage: "${name}"`);
    if (byName.has(name)) throw lineError(line, `duplicate stage name "${name}"`);
  }
  const parent = byName.get(image.toLowerCase());
  if (parent) {
    return {
      name,
      base: parent.base,
      fromStage: parent.name,
      steps: [],
      env: new Map(parent.env),
      envSize: parent.envSize,
      imageEnv: new Map(parent.imageEnv),
      workdir: parent.workdir,
      shell: [...parent.shell],
    };
  }
  const env = new Map(Object.entries(baseEnv ?? { PATH: DEFAULT_PATH }));
  let envSize = 0;
  for (const [key, value] of env) envSize += variableSize(key, value);
  return {
    name,
    base: image,
    fromStage: null,
    steps: [],
    env,
    envSize,
    imageEnv: new Map(),
    workdir: null,
    shell: ["/bin/sh", "-c"],
  };
}

function resolveInStage(
  instruction: Instruction,
  stage: ResolvedStage,
  context: ExpansionContext,
  carried: CarriedEnvironment,
  base: Omit<UnsealedStep, "action" | "notes" | "stage">,
): UnsealedStep {
  const line = instruction.startLine;
  const step = { ...base, stage: stage.name };
  switch (instruction.keyword) {
    case "env": {
      // Every pair expands against the environment as it was before this instruction: expand all, then set.
      const before = stage.env;
      const pairs: { name: string; value: string }[] = [];
      const values = instruction.args.values;
      if (values.length === 0) throw lineError(line, "ENV names no variable");
      for (let i = 0; i + 1 < values.length; i += 3) {
        const name = expandAt(values[i]!, before, line, context);
        if (name === "") throw lineError(line, "ENV names an empty variable");
        pairs.push({ name, value: expandAt(values[i + 1]!, before, line, context) });
      }
      stage.envSnapshot = undefined;
      for (const { name, value } of pairs) {
        setVariable(stage, name, value);
        stage.imageEnv.set(name, value);
      }
      return { ...step, action: "env", notes: [], env: pairs };
    }
    case "workdir": {
      const value = expandAt(instruction.args.values[0] ?? "", stage.env, line, context);
      if (value === "") throw lineError(line, "WORKDIR needs a path");
      const next = resolveWorkdir(stage.workdir, value);
      if (next.length > MAX_VALUE_LENGTH) throw lineError(line, valueTooLongError().message);
      carryStep(carried, next.length, line);
      stage.workdir = next;
      return { ...step, action: "workdir", notes: [], workdir: next };
    }
    case "shell": {
      if (!instruction.args.json || instruction.args.values.length === 0) {
        throw lineError(line, 'SHELL requires the arguments in JSON form, e.g. SHELL ["/bin/bash", "-c"]');
      }
      refuseNul(instruction.args.values, "SHELL", line);
      carryStep(carried, shellSize(instruction.args.values), line);
      stage.shell = [...instruction.args.values];
      return { ...step, action: "shell", notes: [], shell: [...stage.shell] };
    }
    case "run":
      return { ...step, action: "run", ...resolveRun(instruction, stage, carried) };
    default:
      return { ...step, action: "skipped", notes: describeSkip(instruction, stage, context) };
  }
}

function variableSize(name: string, value: string): number {
  return name.length + value.length + 2;
}

function setVariable(stage: ResolvedStage, name: string, value: string): void {
  const previous = stage.env.get(name);
  if (previous !== undefined) stage.envSize -= variableSize(name, previous);
  stage.envSize += variableSize(name, value);
  stage.env.set(name, value);
}

/**
 * `posix.resolve(current ?? "/", value)`, without normalising the (already normal) current path again for each
 * relative WORKDIR: a long path followed by many `WORKDIR .` or `WORKDIR sub` lines stays linear in the text.
 */
export function resolveWorkdir(current: string | null, value: string): string {
  if (current === null || value.startsWith("/")) return posix.resolve(current ?? "/", value);
  const relative = posix.normalize(value).replace(/\/+$/, "");
  if (relative === "." || relative === "") return current;
  if (relative === ".." || relative.startsWith("../")) return posix.resolve(current, relative);
  return current === "/" ? `/${relative}` : `${current}/${relative}`;
}
