// Where the demo's services write: each one's JSON log lines go to a file of its own in a folder the demo names
// at the start and keeps after it ends, so the terminal shows the demo's own steps and a person can still read
// what the services logged (issue 37 A11). On a failure the demo prints the last lines of each.
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Makes the kept log folder (under the system's temporary folder) and returns it. */
export function makeLogDir() {
  return mkdtempSync(join(tmpdir(), "baton-demo-logs-"));
}

/** Opens `<name>.log` in the demo's log folder for a child's stderr; returns the descriptor to hand to spawn.
 * The caller closes it once the child is spawned (the child keeps its own copy). */
export function openLog(ctx, name) {
  const file = join(ctx.logDir, `${name}.log`);
  ctx.logs.push(file);
  return openSync(file, "a");
}

/** Spawn's stdio with stderr to `<name>.log`; call the returned `close` once the child is spawned. */
export function stdioWithLog(ctx, name) {
  const fd = openLog(ctx, name);
  return { stdio: ["ignore", "pipe", fd], close: () => closeSync(fd) };
}

/** The last `lines` lines of each service log, for a failure's explanation. */
export function logTails(ctx, lines = 15) {
  return (ctx.logs ?? [])
    .filter((file) => existsSync(file))
    .map((file) => {
      const tail = readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
      return `--- the last lines of ${file}:\n${tail}`;
    });
}

/** Imports a module without the one "experimental" warning it prints (node:sqlite's, in the middle of the output). */
export async function importQuietly(name) {
  const emit = process.emitWarning;
  process.emitWarning = (warning, ...rest) =>
    String(rest[0]?.type ?? rest[0]) === "ExperimentalWarning"
      ? undefined
      : emit.call(process, warning, ...rest);
  try {
    return await import(name);
  } finally {
    process.emitWarning = emit;
  }
}
