// RUN as BuildKit runs it (shell form with the SHELL in force, exec form, heredocs) and what every other
// instruction means inside a running sandbox. Pure.

import { type ExpansionContext, expandAt } from "./expand.js";
import { processWord } from "./lexer.js";
import { MAX_CARRIED_ENVIRONMENT, MAX_DOCKERFILE_BYTES } from "./limits.js";
import { type Instruction, lineError } from "./parse.js";
import type { ResolvedStage } from "./resolve.js";
import type { RunSpec } from "./types.js";

const HEREDOC_COMMAND = /^(\d*)<<(-?)([^<]*)$/;
const RUN_FLAGS = new Set(["mount", "network", "security"]);

function parseFlag(flag: string, line: number): { name: string; value: string } {
  const match = /^--([A-Za-z][A-Za-z0-9-]*)(?:=(.*))?$/s.exec(flag);
  if (!match) throw lineError(line, `malformed flag "${flag}"`);
  return { name: match[1]!.toLowerCase(), value: match[2] ?? "" };
}

function describeMount(value: string): string {
  const fields = new Map(
    value.split(",").map((part) => {
      const at = part.indexOf("=");
      return at < 0 ? [part.toLowerCase(), "true"] : [part.slice(0, at).toLowerCase(), part.slice(at + 1)];
    }),
  );
  const type = fields.get("type") ?? "bind";
  const target = fields.get("target") ?? fields.get("dst") ?? fields.get("destination") ?? "";
  switch (type) {
    case "cache":
      return `--mount=type=cache${target ? ` at ${target}` : ""} runs without the cache`;
    case "secret":
      return `--mount=type=secret (id ${fields.get("id") ?? target}) is not provided here; the step runs without it`;
    case "ssh":
      return "--mount=type=ssh is not provided here; the step runs without an SSH agent mount";
    case "tmpfs":
      return `--mount=type=tmpfs${target ? ` at ${target}` : ""} is not mounted`;
    default:
      return `--mount=type=${type}${target ? ` at ${target}` : ""} is not mounted; files come from the checkout`;
  }
}

function chompTabs(text: string): string {
  return text.replace(/^\t+/gm, "");
}

/**
 * The characters the plan's steps carry so far: each RUN step its ENV and ARG values, WORKDIR and SHELL; each
 * WORKDIR and SHELL step its own path or arguments.
 */
export interface CarriedEnvironment {
  characters: number;
}

/** Counts what one step carries; past the bound, an error naming the line. */
export function carryStep(carried: CarriedEnvironment, characters: number, line: number): void {
  carried.characters += characters;
  if (carried.characters > MAX_CARRIED_ENVIRONMENT) {
    throw lineError(
      line,
      `the steps up to here carry more than ${MAX_CARRIED_ENVIRONMENT} characters of ENV and ARG values, ` +
        "WORKDIR and SHELL between them (each step carries every value in force); shorten them or use fewer steps",
    );
  }
}

/** Program arguments are C strings: a NUL (JSON's \u0000) cannot be passed to any program. */
export function refuseNul(values: readonly string[], what: string, line: number): void {
  if (values.some((value) => value.includes("\0"))) {
    throw lineError(
      line,
      `${what}'s JSON arguments hold a NUL (\\u0000), which no program argument can hold`,
    );
  }
}

export function shellSize(shell: readonly string[]): number {
  let size = 0;
  for (const arg of shell) size += arg.length;
  return size;
}

export function resolveRun(
  instruction: Instruction,
  stage: ResolvedStage,
  carried: CarriedEnvironment,
): { notes: string[]; run: RunSpec } {
  const line = instruction.startLine;
  const notes: string[] = [];
  for (const raw of instruction.flags) {
    const flag = parseFlag(raw, line);
    if (!RUN_FLAGS.has(flag.name)) throw lineError(line, `unknown flag for RUN: --${flag.name}`);
    if (flag.name === "mount") notes.push(describeMount(flag.value));
    else
      notes.push(`--${flag.name}=${flag.value} is not applied; the step uses the sandbox's own ${flag.name}`);
  }
  const values = instruction.args.values;
  const workdir = stage.workdir;
  const carriedShell = instruction.args.json ? 0 : shellSize(stage.shell);
  carryStep(carried, stage.envSize + (workdir?.length ?? 0) + carriedShell, line);
  stage.envSnapshot ??= Object.fromEntries(stage.env);
  const env = stage.envSnapshot;
  if (values.length === 0 || (values.length === 1 && values[0] === "" && !instruction.args.json)) {
    throw lineError(line, "RUN needs a command");
  }
  if (instruction.args.json) {
    refuseNul(values, "RUN", line);
    return { notes, run: { argv: [...values], form: "exec", workdir, env } };
  }
  const command = values[0]!;
  const heredocs = instruction.heredocs;
  if (heredocs.length === 0) {
    return { notes, run: { argv: [...stage.shell, command], form: "shell", workdir, env } };
  }
  const match = HEREDOC_COMMAND.exec(command);
  const single = match?.[3]
    ? processWord(match[3], new Map(), { skipUnsetEnv: true }).words.length === 1
    : false;
  const first = heredocs[0]!;
  if (single) {
    const data = first.chomp ? chompTabs(first.content) : first.content;
    if (data.startsWith("#!")) {
      notes.push(`the heredoc ${first.name} starts with #! and runs as its own script, as BuildKit does`);
      return {
        notes,
        run: { argv: [], form: "heredoc-script", script: { name: first.name, content: data }, workdir, env },
      };
    }
    return { notes, run: { argv: [...stage.shell, data], form: "shell", workdir, env } };
  }
  let full = command;
  for (const heredoc of heredocs) full += `\n${heredoc.content}${heredoc.name}`;
  return { notes, run: { argv: [...stage.shell, full], form: "shell", workdir, env } };
}

/** Why an instruction does nothing in the sandbox; expands its words first so bad forms fail as in a build. */
export function describeSkip(
  instruction: Instruction,
  stage: ResolvedStage,
  context: ExpansionContext,
): string[] {
  const line = instruction.startLine;
  const expandAll = (values: readonly string[]) => values.map((v) => expandAt(v, stage.env, line, context));
  const keyword = instruction.keyword;
  switch (keyword) {
    case "copy":
    case "add": {
      const notes = [
        `${keyword.toUpperCase()} is not performed: the repository's files are in the checkout already`,
      ];
      const from = instruction.flags.find((f) => f.toLowerCase().startsWith("--from="));
      if (from) notes.push(`it copies ${from.slice(7)}'s files, which are not reproduced here`);
      for (const heredoc of instruction.heredocs) {
        // A heredoc is a file's content, not one value: it may be as long as the Dockerfile.
        if (heredoc.expand) expandAt(heredoc.content, stage.env, line, context, MAX_DOCKERFILE_BYTES);
        notes.push(`the heredoc file ${heredoc.name} is not written`);
      }
      const plain = instruction.args.values.filter((v) => !/^\d*<<-?/.test(v));
      if (!instruction.args.json) expandAll(plain);
      return notes;
    }
    case "user":
      return [
        `USER ${expandAll(instruction.args.values).join(" ")} is not switched: steps run as the sandbox user`,
      ];
    case "expose":
      expandAll(instruction.args.values);
      return ["EXPOSE only documents ports; nothing to do in a running sandbox"];
    case "volume":
      if (!instruction.args.json) expandAll(instruction.args.values);
      return ["VOLUME declares image mount points; nothing to do in a running sandbox"];
    case "label":
      expandAll(instruction.args.values.filter((_, i) => i % 3 !== 2));
      return ["LABEL is image metadata"];
    case "stopsignal":
      expandAll(instruction.args.values);
      return ["STOPSIGNAL applies to a container's main process; not applied"];
    case "maintainer":
      return ["MAINTAINER is image metadata"];
    case "cmd":
    case "entrypoint":
    case "healthcheck":
      return [`${keyword.toUpperCase()} is not run: the startup runner decides what starts in the sandbox`];
    case "onbuild":
      return ["ONBUILD triggers run only in images built FROM this one; not run"];
    default:
      throw lineError(line, `unknown instruction: ${keyword.toUpperCase().slice(0, 40)}`);
  }
}
