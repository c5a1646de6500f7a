// Runs wrk with bench/server-load.lua and resolves with the JSON line its `done` prints ({units, errors, polls,
// overlays, requests, us}); rejects when wrk is missing, fails, or prints no such line.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { root } from "./serve.mjs";

export const LOAD_SCRIPT = join(root, "bench", "server-load.lua");

export function runLoadScript({ url, mode, ms, credentials, prefix, connections, threads }) {
  const args = [
    "-t",
    String(threads),
    "-c",
    String(connections),
    "-d",
    `${ms / 1000}s`,
    "-s",
    LOAD_SCRIPT,
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("wrk", [...args, "--", mode, credentials, prefix, String(threads)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.on("error", (error) =>
      reject(
        error.code === "ENOENT"
          ? new Error("wrk is not installed; install it (apt-get install wrk, or scripts/setup-machine.sh)")
          : error,
      ),
    );
    child.on("close", (code) => {
      const line = out.split("\n").find((l) => l.startsWith('{"bench":'));
      if (code !== 0 || !line) return reject(new Error(`wrk ${mode} exited ${code}: ${out.trim()}`));
      resolve(JSON.parse(line));
    });
  });
}
