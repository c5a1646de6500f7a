#!/usr/bin/env node
// The only place that calls process.exit. `--version` is answered before anything else loads (cold start).
const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
  const { readVersion } = await import("../version.js");
  process.stdout.write(`${readVersion()}\n`);
} else {
  const [{ runCli }, { processIo }] = await Promise.all([import("./main.js"), import("./io.js")]);
  const code = await runCli(argv, processIo());
  process.exitCode = code;
  // Let stdout drain; then leave even if a library left a handle open.
  process.stdout.write("", () => process.exit(code));
}
