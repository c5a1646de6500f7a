// `baton env apply --overlay <file|->`: validate an overlay document and write environment.sh. Returns what was
// written (names only); src/cli prints it.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { OverlaySchema } from "../envfile/overlay.js";
import { BatonError, InputError } from "../errors.js";
import { type Log, SILENT_LOG } from "../log-level.js";
import { type AppliedOverlay, applyOverlay } from "./apply-overlay.js";
import { prepareProxySettings } from "./proxy-trust.js";

const MAX_OVERLAY_BYTES = 64 * 1024 * 1024;

export interface EnvApplyInput {
  /** A file path (relative to `cwd`) or `-` for standard input. */
  overlay: string;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  log?: Log;
}

export async function applyOverlayDocument(input: EnvApplyInput): Promise<AppliedOverlay> {
  const log = input.log ?? SILENT_LOG;
  const bytes = await readOverlayBytes(input);
  const overlay = parseOrThrow(OverlaySchema, parseJson(bytes), "overlay");
  const paths = resolveSandboxPaths(input.env);
  log.debug({ revision: overlay.revision, path: paths.environmentFile }, "applying overlay");
  const proxy = await prepareProxySettings({ env: input.env, paths });
  const applied = await applyOverlay({ overlay, paths, proxy });
  log.info(
    { revision: applied.revision, path: applied.path, count: applied.variables.length },
    "wrote environment file",
  );
  return applied;
}

async function readOverlayBytes(input: EnvApplyInput): Promise<Buffer> {
  if (input.overlay === "-") {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of input.stdin) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      size += buffer.length;
      if (size > MAX_OVERLAY_BYTES)
        throw new InputError("the overlay on standard input is larger than 64 MiB");
      chunks.push(buffer);
    }
    return Buffer.concat(chunks);
  }
  const path = resolve(input.cwd, input.overlay);
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
