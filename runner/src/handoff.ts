// Reads the saved handoff (~/.baton/handoffs/<owner>__<name>.json) without zod: the runner is dependency-free,
// so this checks exactly the fields it uses and names the first one that is wrong. The path rules are the
// CLI's own (src/handoff/check-saved.ts, bundled), applied again to whatever is on disk now.
import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { checkSavedHandoffPaths } from "../../src/handoff/check-saved.js";
import type { HandoffPaths } from "../../src/handoff/paths.js";
import { inspectFolderUnder } from "../../src/safefs/folders.js";
import { readFileSafeSync } from "../../src/safefs/read.js";
import type { RunnerArgs } from "./args.js";

export type ReadinessCheckSpec =
  | { kind: "http"; url: string; deadlineSeconds: number }
  | { kind: "tcp"; host: string; port: number; deadlineSeconds: number }
  | { kind: "command"; command: string; deadlineSeconds: number };

export interface RunnerHandoff {
  file: string;
  repository: string;
  versionId: string;
  checkoutPath: string;
  startupScriptPath: string;
  evidencePath: string;
  timeoutSeconds: number;
  readiness: ReadinessCheckSpec[];
}

export const DEFAULT_TIMEOUT_SECONDS = 15 * 60;

export class HandoffError extends Error {
  override readonly name = "HandoffError";
}

export function batonHome(env: NodeJS.ProcessEnv): string {
  return join(env.HOME && env.HOME.length > 0 ? env.HOME : homedir(), ".baton");
}

/** Saved handoffs are a few KiB (src/handoff/saved.ts MAX_SAVED_HANDOFF_BYTES). */
const MAX_HANDOFF_BYTES = 1024 * 1024;

export const fileNameFor = (repository: string) => `${repository.replace("/", "__")}.json`;

/** Where evidence goes when the handoff could not say (e.g. it is missing or broken). */
export function fallbackEvidencePath(env: NodeJS.ProcessEnv, repository: string | undefined): string {
  return join(batonHome(env), "evidence", repository ? fileNameFor(repository) : "runner.json");
}

/** The handoff file: --handoff, else the one for --repo, else the only one saved. */
export function locateHandoff(args: RunnerArgs, env: NodeJS.ProcessEnv): string {
  if (args.handoff !== undefined) return args.handoff;
  const dir = join(batonHome(env), "handoffs");
  if (args.repo !== undefined) return join(dir, fileNameFor(args.repo));
  let files: string[] = [];
  // A handoffs folder that is a link (or sits under one) is refused rather than listed.
  if (inspectFolderUnder(batonHome(env), dir)) {
    try {
      files = readdirSync(dir).filter((name) => name.endsWith(".json"));
    } catch {
      // handled below
    }
  }
  if (files.length === 1) return join(dir, files[0] as string);
  throw new HandoffError(
    files.length === 0
      ? `no saved handoff in ${dir}; run \`baton env activate <owner/name>\` first`
      : `${files.length} saved handoffs in ${dir}; pass --repo <owner/name>`,
  );
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function field<T>(object: Json, name: string, check: (v: unknown) => v is T, what: string, path: string): T {
  const value = object[name];
  if (!check(value)) throw new HandoffError(`handoff field ${path}${name} must be ${what}`);
  return value;
}
const isString = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isAbsolutePath = (v: unknown): v is string => isString(v) && isAbsolute(v);
const isOptionalPath = (v: unknown): v is string | null | undefined => v == null || isString(v);
const isPositive = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v > 0;

function parseCheck(value: unknown, index: number): ReadinessCheckSpec {
  const path = `managedStartup.readiness.checks[${index}].`;
  if (!isObject(value)) throw new HandoffError(`handoff field ${path.slice(0, -1)} must be an object`);
  const deadlineSeconds = field(value, "deadlineSeconds", isPositive, "a positive number", path);
  switch (value.kind) {
    case "http":
      return { kind: "http", url: field(value, "url", isString, "a URL", path), deadlineSeconds };
    case "tcp": {
      const host = field(value, "host", isString, "a host name", path);
      const isPort = (v: unknown): v is number =>
        Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;
      return {
        kind: "tcp",
        host,
        port: field(value, "port", isPort, "a port number", path),
        deadlineSeconds,
      };
    }
    case "command":
      return {
        kind: "command",
        command: field(value, "command", isString, "a command", path),
        deadlineSeconds,
      };
    default:
      throw new HandoffError(`handoff field ${path}kind must be http, tcp or command`);
  }
}

/**
 * Parses a saved handoff document (schemaVersion 1) into what the runner needs, with the path rules applied:
 * the script and checkout files stay in the checkout, evidence stays in ~/.baton, and the handoff is for
 * `expected` (the --repo given) when there is one.
 */
export function parseHandoff(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv,
  expected?: string | undefined,
): RunnerHandoff {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HandoffError(`${file} is not JSON; run \`baton env activate <owner/name>\` again`);
  }
  if (!isObject(json) || json.schemaVersion !== 1)
    throw new HandoffError(`${file} is not a schemaVersion 1 saved handoff`);
  const repository = field(json, "repository", isString, "owner/name", "");
  const checkoutPath = field(json, "checkoutPath", isAbsolutePath, "an absolute path", "");
  const startup = json.managedStartup;
  if (!isObject(startup))
    throw new HandoffError(
      `the handoff for ${repository} has no managedStartup; the agent runs no startup script`,
    );
  if (startup.state !== "available") {
    const disclosure = typeof startup.disclosure === "string" ? `: ${startup.disclosure}` : "";
    throw new HandoffError(`the startup handoff for ${repository} is ${String(startup.state)}${disclosure}`);
  }
  const m = "managedStartup.";
  const timeout = startup.startupTimeoutSeconds;
  const readiness = startup.readiness;
  const checks = isObject(readiness) && Array.isArray(readiness.checks) ? readiness.checks : [];
  const optionalPath = (name: string) => field(startup, name, isOptionalPath, "a path or null", m) ?? null;
  const raw: HandoffPaths = {
    dockerfilePath: optionalPath("dockerfilePath"),
    agentInstructionsPath: optionalPath("agentInstructionsPath"),
    startupScriptPath: field(startup, "startupScriptPath", isString, "a path", m),
    runPath: optionalPath("runPath"),
    evidencePath: field(startup, "evidencePath", isString, "a path", m),
  };
  // Saved handoffs hold absolute paths; the raw wire forms (relative to the checkout, ~/.baton/...) work too.
  const checked = checkSavedHandoffPaths(
    {
      repository,
      checkoutPath,
      managedStartup: {
        ...raw,
        ...(typeof startup.repository === "string" ? { repository: startup.repository } : {}),
      },
    },
    { file, batonDir: batonHome(env), expected },
  ).managedStartup as HandoffPaths;
  return {
    file,
    repository,
    versionId: field(startup, "versionId", isString, "a version id", m),
    checkoutPath,
    startupScriptPath: checked.startupScriptPath as string,
    evidencePath: checked.evidencePath as string,
    timeoutSeconds:
      timeout === undefined
        ? DEFAULT_TIMEOUT_SECONDS
        : field(startup, "startupTimeoutSeconds", isPositive, "a positive number", m),
    readiness: checks.map(parseCheck),
  };
}

/**
 * Reads the handoff: one under ~/.baton with every folder checked from ~/.baton down, one named by --handoff
 * as given; either way never through a symbolic link at the file itself, never a FIFO, at most 1 MiB.
 */
export function readHandoff(file: string, env: NodeJS.ProcessEnv, args: RunnerArgs): RunnerHandoff {
  const root = args.handoff === undefined ? batonHome(env) : null;
  const text = readFileSafeSync(root, file, { maxBytes: MAX_HANDOFF_BYTES });
  if (text === null) {
    throw new HandoffError(
      `cannot read the saved handoff ${file}; run \`baton env activate <owner/name>\` first`,
    );
  }
  return parseHandoff(text, file, env, args.repo);
}
