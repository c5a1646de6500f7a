// Starts a fake model (standalone.ts, bundled once by esbuild into one file Node runs) inside a network namespace
// host, so `baton proxy` reaches it at an address that is not its own machine's.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import type { NetnsHost } from "../netns.js";
import type { RecordedRequest } from "./server.js";
import type { StandaloneFakeSettings } from "./standalone.js";

export interface NamespacedFake {
  url: string;
  /** The requests it recorded so far (read from its file). */
  requests(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeInNamespace(
  host: NetnsHost,
  dir: string,
  settings: Omit<StandaloneFakeSettings, "requestsFile" | "host">,
): Promise<NamespacedFake> {
  const bundle = join(dir, "fake-model.mjs");
  if (!existsSync(bundle))
    await build({
      entryPoints: [join(import.meta.dirname, "standalone.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      outfile: bundle,
      logLevel: "silent",
    });
  const requestsFile = join(dir, `fake-${settings.api}-requests.json`);
  const settingsFile = join(dir, `fake-${settings.api}.json`);
  writeFileSync(settingsFile, JSON.stringify({ ...settings, host: host.address, requestsFile }), {
    mode: 0o600,
  });
  const child = host.spawn(process.execPath, [bundle, settingsFile]);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`the fake model did not start: ${stderr}`)), 30_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /ready (\S+)/.exec(out);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the fake model exited (${code}): ${stderr}`));
    });
  });
  return {
    url,
    requests: () =>
      existsSync(requestsFile) ? (JSON.parse(readFileSync(requestsFile, "utf8")) as RecordedRequest[]) : [],
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
