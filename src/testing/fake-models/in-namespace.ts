// Starts a fake model (standalone.ts, built to standalone.js, run by Node) inside a network namespace host, so
// `baton proxy` reaches it at an address that is not its own machine's. The real-agents tests and `npm run demo
// -- --agent <id>` start theirs here.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { NetnsHost } from "../netns.js";
import type { ScriptStep } from "./script.js";
import type { RecordedRequest } from "./server.js";

/** The standalone fake's settings file. */
export interface StandaloneFakeSettings {
  api: "anthropic" | "openai-responses";
  script: ScriptStep[];
  tls: { key: string; cert: string };
  host: string;
  port: number;
  /** Where it keeps the requests it recorded (a JSON array). */
  requestsFile: string;
  /** Where it writes its URL once it listens. */
  readyFile: string;
}

export interface NamespacedFake {
  url: string;
  /** The requests it recorded so far (read from its file). */
  requests(): RecordedRequest[];
  close(): Promise<void>;
}

/** The built standalone fake: beside this module in dist/, or dist's when this runs as TypeScript (the tests). */
export const STANDALONE_FAKE = import.meta.url.endsWith(".ts")
  ? fileURLToPath(new URL("../../../dist/src/testing/fake-models/standalone.js", import.meta.url))
  : join(import.meta.dirname, "standalone.js");

export async function startFakeInNamespace(
  host: NetnsHost,
  dir: string,
  settings: Omit<StandaloneFakeSettings, "requestsFile" | "readyFile" | "host">,
  options: { timeoutMs?: number } = {},
): Promise<NamespacedFake> {
  const requestsFile = join(dir, `fake-${settings.api}-requests.json`);
  const readyFile = join(dir, `fake-${settings.api}-ready`);
  const settingsFile = join(dir, `fake-${settings.api}.json`);
  rmSync(readyFile, { force: true });
  const full: StandaloneFakeSettings = { ...settings, host: host.address, requestsFile, readyFile };
  writeFileSync(settingsFile, JSON.stringify(full), { mode: 0o600 });
  const child = host.spawn(process.execPath, [STANDALONE_FAKE, settingsFile]);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let url: string | undefined;
  while (url === undefined) {
    if (existsSync(readyFile)) url = readFileSync(readyFile, "utf8");
    else if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the fake model exited (${child.exitCode ?? child.signalCode}): ${stderr}`);
    else if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the fake model did not start: ${stderr}`);
    } else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    requests: () =>
      existsSync(requestsFile) ? (JSON.parse(readFileSync(requestsFile, "utf8")) as RecordedRequest[]) : [],
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}
