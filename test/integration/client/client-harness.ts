// The client commands black-box: the real `baton` binary against a real `baton serve` (fixtures/seeds/api.json),
// signed in through a config file written by the client's own config module for a seeded token, with
// BATON_API_URL naming the plain-http loopback service (the one documented override) and the test-only poll
// interval shortened so a test does not wait 3 s a poll.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { locateConfig, saveConfig } from "../../../src/client/config.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { ADMIN_PATHS } from "../../../src/transport/wire.js";
import { BATON_BIN, type BatonRun, runBaton } from "../../helpers/cli.js";
import type { ServeHandle } from "../../helpers/serve.js";
import { until } from "../api/harness.js";

export const WORKSPACE = "ws_acme";

export interface ClientUser {
  /** XDG_CONFIG_HOME holding baton/config.json. */
  configHome: string;
  env(extra?: Record<string, string>): Record<string, string>;
  run(args: readonly string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<BatonRun>;
  /** A running `baton` child, for signals. */
  spawn(args: readonly string[], options?: { cwd?: string; env?: Record<string, string> }): ResultPromise;
  remove(): Promise<void>;
}

/** Every output of every run, for the canary check at the end of a suite. */
export const OUTPUTS: string[] = [];

export async function signIn(
  apiUrl: string,
  token: string,
  workspace: string | null = WORKSPACE,
): Promise<ClientUser> {
  const configHome = await mkdtemp(join(tmpdir(), "baton-client-"));
  const now = new Date().toISOString();
  saveConfig(locateConfig({ XDG_CONFIG_HOME: configHome }), {
    apiUrl,
    token,
    kind: "personal",
    workspace,
    signedInAt: now,
    lastUsedAt: now,
    expiresAt: null,
    refreshToken: null,
    clientId: null,
  });
  const env = (extra: Record<string, string> = {}) => ({
    XDG_CONFIG_HOME: configHome,
    BATON_API_URL: apiUrl,
    BATON_CLIENT_POLL_MS: "100",
    ...extra,
  });
  return {
    configHome,
    env,
    run: async (args, options = {}) => {
      const result = await runBaton(args, { cwd: options.cwd ?? configHome, env: env(options.env) });
      OUTPUTS.push(result.stdout, result.stderr);
      return result;
    },
    spawn: (args, options = {}) => {
      const child = execa(process.execPath, [BATON_BIN, ...args], {
        reject: false,
        stripFinalNewline: false,
        cwd: options.cwd ?? configHome,
        env: { BATON_LOG_LEVEL: "", ...env(options.env) },
      });
      void child.then((r) => OUTPUTS.push(String(r.stdout), String(r.stderr)));
      return child;
    },
    remove: () => rm(configHome, { recursive: true, force: true }),
  };
}

export async function api(serve: ServeHandle, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(new URL(path, serve.url), {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: the public API's shapes are checked by its own suites
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
}

// biome-ignore lint/suspicious/noExplicitAny: see api()
export async function tasksOf(serve: ServeHandle, token: string): Promise<any[]> {
  const answer = await api(serve, "GET", `${API_PATHS.tasks(WORKSPACE)}?limit=100`, token);
  // An answer without a list (a refusal, a failure) says what it was instead of failing later on `undefined`.
  if (!Array.isArray(answer.body?.tasks))
    throw new Error(`listing tasks answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.tasks;
}

// biome-ignore lint/suspicious/noExplicitAny: see api()
export async function messagesOf(serve: ServeHandle, taskId: string, token: string): Promise<any[]> {
  return (await api(serve, "GET", API_PATHS.messages(WORKSPACE, taskId), token)).body.messages;
}

/** Manual agent mode: end the task's turn once it waits for an answer (it may not be waiting yet). */
export async function answerTurn(
  serve: ServeHandle,
  taskId: string,
  kind: "reply" | "clarify" | "fail",
  text: string,
) {
  return until(async () => {
    const response = await serve.admin(ADMIN_PATHS.taskAnswer.replace(":id", taskId), { kind, text });
    const body = (await response.json()) as { error?: string };
    return body.error === "turn_not_waiting" ? undefined : { status: response.status, body };
  }, `task ${taskId}'s turn to wait for an answer`);
}

/** Stops every open turn in the workspace, so each test starts inside the plan's slots and the 5-task limit. */
export async function stopOpenTasks(serve: ServeHandle, token: string): Promise<void> {
  for (const task of await tasksOf(serve, token)) {
    if (task.status === "pending" || task.status === "implementing")
      await api(serve, "POST", API_PATHS.stop(WORKSPACE, task.id), token);
  }
  await until(
    async () =>
      (await tasksOf(serve, token)).every((t) => t.status !== "pending" && t.status !== "implementing"),
    "every open turn to stop",
  );
}

/** The task id a following run printed on stderr ("Started task <id>; …"). */
export function startedTaskId(stderr: string): string | undefined {
  return /Started task (task_\S+?)[;.]/.exec(stderr)?.[1];
}
