// `baton env apply --overlay <file|->`: validate an overlay document, write environment.sh, print the names.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { EXIT, type ExitCode } from "../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../cli/io.js";
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { OverlaySchema } from "../envfile/overlay.js";
import { BatonError, InputError } from "../errors.js";
import type { Logger } from "../log.js";
import { applyOverlay } from "./apply-overlay.js";
import { describeCount, renderNameMapping } from "./render-mapping.js";

const MAX_OVERLAY_BYTES = 64 * 1024 * 1024;

export interface EnvApplyOptions {
  /** A file path (relative to `io.cwd`) or `-` for standard input. */
  overlay: string;
  json: boolean;
  io: CliIo;
}

export async function runEnvApply(options: EnvApplyOptions): Promise<ExitCode> {
  const { io } = options;
  const log = await openLogger(io.env);
  const bytes = await readOverlayBytes(options.overlay, io);
  const overlay = parseOrThrow(OverlaySchema, parseJson(bytes), "overlay");
  const paths = resolveSandboxPaths(io.env);
  log?.debug({ revision: overlay.revision, path: paths.environmentFile }, "applying overlay");
  const applied = await applyOverlay({ overlay, paths });
  log?.info(
    { revision: applied.revision, path: applied.path, count: applied.variables.length },
    "wrote environment file",
  );
  if (options.json) {
    writeJson(io.stdout, { revision: applied.revision, path: applied.path, variables: applied.variables });
    return EXIT.ok;
  }
  writeLine(
    io.stdout,
    `Wrote ${applied.path} (${describeCount(applied.revision, applied.variables.length)}).`,
  );
  for (const line of renderNameMapping(applied.variables)) writeLine(io.stdout, line);
  writeLine(io.stdout, 'Load it in a new shell with: . "$HOME/.baton/environment.sh"');
  return EXIT.ok;
}

/** pino costs about 100 ms of start-up CPU; load it only when BATON_LOG_LEVEL asks for logs. */
async function openLogger(env: NodeJS.ProcessEnv): Promise<Logger | undefined> {
  if (!env.BATON_LOG_LEVEL || env.BATON_LOG_LEVEL.toLowerCase() === "silent") return undefined;
  const { createLogger } = await import("../log.js");
  return createLogger(env);
}

async function readOverlayBytes(source: string, io: CliIo): Promise<Buffer> {
  if (source === "-") {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of io.stdin) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      size += buffer.length;
      if (size > MAX_OVERLAY_BYTES)
        throw new InputError("the overlay on standard input is larger than 64 MiB");
      chunks.push(buffer);
    }
    return Buffer.concat(chunks);
  }
  const path = resolve(io.cwd, source);
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BatonError(
      code === "ENOENT" ? "not_found" : "invalid_input",
      `cannot read the overlay file ${path} (${code ?? "unknown error"}); pass --overlay <file> or --overlay -`,
      { cause: error },
    );
  }
}

/** JSON.parse messages quote the input, which may hold secrets: report only where parsing stopped. */
function parseJson(bytes: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new InputError("the overlay is not valid UTF-8", { path: "(document)" });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(String((error as Error).message))?.[1];
    const where = position === undefined ? "" : ` (stopped at character ${position})`;
    throw new InputError(`the overlay is not valid JSON${where}`, { path: "(document)" });
  }
}
