// What the demo's two flows (scripts/demo.mjs, scripts/demo/real-agent.mjs) share to run commands: the built
// CLI's path, commands shown as they can be typed, the client run as a person would, and a free loopback port.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const bin = join(root, "dist", "src", "cli", "bin.js");

/** A word as a shell reads it back: quoted when it holds anything but plain characters. */
export function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** A loopback port nothing listens on right now (the service binds it a moment later). */
export async function freeLoopbackPort() {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Runs a client command as a person would, with the demo's config folder and the loopback override; prints
 * what it printed. Throws unless it exits 0.
 */
export function client(ctx, args, { input } = {}) {
  if (input === undefined) console.log(`$ baton ${args.map(shellWord).join(" ")}`);
  // stdout and stderr into one file, so its lines keep the order the client wrote them in.
  const outputFile = join(ctx.tmp, "client-output.txt");
  const fd = openSync(outputFile, "w");
  let run;
  try {
    run = spawnSync(process.execPath, [bin, ...args], {
      env: ctx.clientEnv,
      cwd: ctx.tmp,
      input: input ?? "",
      stdio: ["pipe", fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  const all = readFileSync(outputFile, "utf8");
  process.stdout.write(all);
  if (run.status !== 0) throw new Error(`baton ${args[0]} exited ${run.status}`);
  return { all };
}

/**
 * `client` for a command that takes a while (following a real agent's turn): its output is printed as it comes,
 * and the demo's own process stays free to answer Ctrl-C. Resolves with all it printed; rejects unless it exits 0.
 */
export async function clientFollowing(ctx, args) {
  console.log(`$ baton ${args.map(shellWord).join(" ")}`);
  const child = spawn(process.execPath, [bin, ...args], {
    env: ctx.clientEnv,
    cwd: ctx.tmp,
    stdio: ["ignore", "pipe", "pipe"],
  });
  ctx.following = child;
  let all = "";
  const show = (chunk) => {
    all += chunk;
    process.stdout.write(chunk);
  };
  child.stdout.setEncoding("utf8").on("data", show);
  child.stderr.setEncoding("utf8").on("data", show);
  const code = await new Promise((resolve) => child.once("close", (exit, signal) => resolve(exit ?? signal)));
  ctx.following = undefined;
  if (code !== 0) throw new Error(`baton ${args[0]} exited ${code}`);
  return { all };
}
