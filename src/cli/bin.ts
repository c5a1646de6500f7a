#!/usr/bin/env node
// The only place that calls process.exit. `--version` is answered before anything else loads (cold start):
// version.js is tiny and main.js needs it anyway, so it is imported statically (no extra await), and the
// answer goes out with writeSync(1) because touching process.stdout builds a stream (and, for a pipe, loads
// net) for one line. Every other command runs with Node's compile cache on (NODE_DISABLE_COMPILE_CACHE=1 turns
// it off): later runs skip compiling the CLI's code. An older Node than the CLI needs gets one line saying so:
// nothing is imported by name from a module that may lack it.
import { writeSync } from "node:fs";
import * as nodeModule from "node:module";
import { readVersion } from "../version.js";
import { unsupportedNodeMessage } from "./node-version.js";

const argv = process.argv.slice(2);
const tooOld = unsupportedNodeMessage(process.version);

if (tooOld) {
  writeSync(2, `${tooOld}\n`);
  process.exitCode = 1;
} else if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
  writeSync(1, `${readVersion()}\n`);
} else {
  nodeModule.enableCompileCache?.();
  const { runCli, processIo } = await import("./main.js");
  const code = await runCli(argv, processIo());
  process.exitCode = code;
  // Leave once stdout has taken everything (or its reader has gone), even if a library left a handle open.
  const out = process.stdout;
  if (out.writableLength === 0 || out.destroyed) process.exit(code);
  const leave = () => process.exit(code);
  out.once("drain", leave).once("error", leave).once("close", leave);
}
