#!/usr/bin/env node
// The only place that calls process.exit. `--version` is answered before anything else loads (cold start):
// version.js is tiny and main.js needs it anyway, so it is imported statically (no extra await), and the
// answer goes out with writeSync(1) because touching process.stdout builds a stream (and, for a pipe, loads
// net) for one line.
import { writeSync } from "node:fs";
import { readVersion } from "../version.js";

const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
  writeSync(1, `${readVersion()}\n`);
} else {
  const [{ runCli }, { processIo }] = await Promise.all([import("./main.js"), import("./io.js")]);
  const code = await runCli(argv, processIo());
  process.exitCode = code;
  // Let stdout drain; then leave even if a library left a handle open.
  process.stdout.write("", () => process.exit(code));
}
