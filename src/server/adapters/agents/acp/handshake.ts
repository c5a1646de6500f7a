// Opening the ACP session on a new agent process: `initialize` (protocol version 1, client "baton" and its
// version, no file system or terminal offered: the agent works in its box with its own tools), then `session/load`
// of the task's earlier session when the agent advertises it, else (or when the agent no longer has it)
// `session/new` in the checkout with Baton's tool servers; then `session/set_mode` when the agent's entry names a
// mode (Codex starts read-only and fails its writes silently). All of it within one deadline, and a stop ends it.
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { describeProblem, InitializeAnswerSchema, NewSessionAnswerSchema } from "./answers.js";
import { AcpSession, type SessionOptions } from "./session.js";
import { type Settled, settle } from "./settle.js";

export type OpenedSession =
  | { kind: "open"; session: AcpSession; loaded: boolean }
  | { kind: "failed"; reason: string }
  | { kind: "stopped" };

/** A step's end; `answered`: the agent answered with a JSON-RPC error (it lives and speaks ACP). */
type Step<T> =
  | { kind: "value"; value: T }
  | { kind: "failed"; reason: string; answered: boolean }
  | { kind: "stopped" };

export async function openSession(options: SessionOptions, signal: AbortSignal): Promise<OpenedSession> {
  const session = new AcpSession(options);
  const opened = await handshake(session, signal);
  if (opened.kind === "open") return opened;
  // A failure has ended the process already; a stop ends it here.
  await session.close();
  return opened;
}

async function handshake(session: AcpSession, signal: AbortSignal): Promise<OpenedSession> {
  const { cwd, mcpServers, resumeSessionId, handshakeMs } = session.options;
  const deadline = Date.now() + handshakeMs;
  const step = async <T>(method: string, request: Promise<T>): Promise<Step<T>> => {
    const settled: Settled<T> = await settle(request, session.failure, {
      deadlineMs: Math.max(0, deadline - Date.now()),
      signal,
    });
    if (settled.kind === "value" || settled.kind === "aborted")
      return settled.kind === "value" ? settled : { kind: "stopped" };
    const reason =
      settled.kind === "deadline"
        ? `did not answer ${method} within ${Math.round(handshakeMs / 1000)} s`
        : settled.kind === "error"
          ? `answered ${method} with an error: ${settled.message}`
          : settled.reason;
    return { kind: "failed", reason, answered: settled.kind === "error" };
  };
  const failed = (reason: string): OpenedSession => {
    session.fail(reason);
    return { kind: "failed", reason: session.failure.reason ?? reason };
  };

  const init = await step(
    "initialize",
    session.connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: { name: "baton", version: session.options.clientVersion },
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    }),
  );
  if (init.kind !== "value") return init.kind === "failed" ? failed(init.reason) : init;
  const answer = InitializeAnswerSchema.safeParse(init.value);
  if (!answer.success) return failed(`answered initialize wrongly: ${describeProblem(answer.error)}`);
  if (answer.data.protocolVersion !== PROTOCOL_VERSION)
    return failed(
      `speaks ACP version ${answer.data.protocolVersion}; Baton speaks version ${PROTOCOL_VERSION}`,
    );

  if (resumeSessionId && answer.data.agentCapabilities?.loadSession === true) {
    session.replaying = true;
    const loaded = await step(
      "session/load",
      session.connection.agent.request("session/load", { sessionId: resumeSessionId, cwd, mcpServers }),
    );
    session.replaying = false;
    if (loaded.kind === "value") {
      session.sessionId = resumeSessionId;
      session.collector.activity.add("session_loaded", {
        sessionId: resumeSessionId,
        replayed: session.replayed,
      });
      const mode = await setMode(session, step);
      if (mode.kind !== "value") return mode.kind === "failed" ? failed(mode.reason) : mode;
      return { kind: "open", session, loaded: true };
    }
    if (loaded.kind === "stopped") return loaded;
    // An agent that answers no (it no longer has that session) gets a new one; anything else is a failure.
    if (!loaded.answered) return failed(loaded.reason);
    session.collector.activity.add("session_not_loaded", { sessionId: resumeSessionId, why: loaded.reason });
  }

  const created = await step(
    "session/new",
    session.connection.agent.request("session/new", { cwd, mcpServers }),
  );
  if (created.kind !== "value") return created.kind === "failed" ? failed(created.reason) : created;
  const fresh = NewSessionAnswerSchema.safeParse(created.value);
  if (!fresh.success) return failed(`answered session/new wrongly: ${describeProblem(fresh.error)}`);
  session.sessionId = fresh.data.sessionId;
  const mode = await setMode(session, step);
  if (mode.kind !== "value") return mode.kind === "failed" ? failed(mode.reason) : mode;
  return { kind: "open", session, loaded: false };
}

type StepRunner = <T>(method: string, request: Promise<T>) => Promise<Step<T>>;

/** Sets the entry's session mode, if it names one, and records it. */
async function setMode(session: AcpSession, step: StepRunner): Promise<Step<unknown>> {
  const modeId = session.options.sessionMode;
  if (!modeId) return { kind: "value", value: undefined };
  const set = await step(
    "session/set_mode",
    session.connection.agent.request("session/set_mode", { sessionId: session.sessionId, modeId }),
  );
  if (set.kind === "value") session.collector.activity.add("session_mode", { modeId });
  return set;
}
