// One ACP connection to one agent process, over any transport that gives its byte streams (host child or box
// exec). It answers permission requests by the written policy and gathers every `session/update` into the current
// turn's collector; handshake.ts opens the session on it and turn.ts runs each prompt. The first failure (an exit,
// a line that is not ACP, a closed output) is kept, raw: the runner sanitises whatever leaves the adapter.
import {
  type ClientConnection,
  client,
  type McpServer,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { type AgentProcess, describeExit } from "./agent-process.js";
import { checkJsonRpcLines } from "./line-check.js";
import { decidePermission } from "./permission-policy.js";
import { Failure } from "./settle.js";
import type { TurnCollector } from "./turn-collector.js";

/** How long a closed output waits for the exit that usually follows it (which says more). */
const CLOSE_WAIT_MS = 2000;

export interface SessionOptions {
  /** The agent's running process (named so as not to shadow Node's `process`). */
  agent: AgentProcess;
  /** The session's working folder (absolute): the task's checkout. */
  cwd: string;
  /** Baton's tool server(s) for the agent. */
  mcpServers: McpServer[];
  /** Baton's version, sent as the client's. */
  clientVersion: string;
  /** A session an earlier process of this task had: loaded when the agent advertises `loadSession`. */
  resumeSessionId: string | null;
  /** The session mode set right after `session/new` or `session/load` (the agent entry's), if any. */
  sessionMode?: string;
  /** How long `initialize` and `session/new` (or `session/load`) may take together. */
  handshakeMs: number;
  /** The longest line the agent may write (one JSON-RPC message). */
  maxLineBytes: number;
  newCollector: () => TurnCollector;
}

export class AcpSession {
  readonly failure = new Failure();
  readonly connection: ClientConnection;
  /** Set by the handshake. */
  sessionId = "";
  /** A loaded session's history comes back as updates before session/load answers: counted, not recorded. */
  replaying = false;
  replayed = 0;
  /** Set by the turn once it sent `session/cancel`: later permission requests are answered `cancelled`. */
  cancelling = false;
  /** Where updates go: the running turn's collector, or the next turn's between turns. */
  collector: TurnCollector;
  private closing = false;

  constructor(readonly options: SessionOptions) {
    this.collector = options.newCollector();
    const { agent } = options;
    const stdout = agent.stdout.pipeThrough(
      checkJsonRpcLines(options.maxLineBytes, (bad) =>
        this.fail(`wrote ${bad.problem} on its ACP output: ${bad.excerpt}`),
      ),
    );
    this.connection = client({ name: "baton" })
      .onRequest("session/request_permission", ({ params }) => this.answerPermission(params))
      .onNotification("session/update", ({ params }) => this.onUpdate(params))
      .connect(ndJsonStream(agent.stdin, stdout, { maxMessageBytes: options.maxLineBytes }));
    void agent.exited.then((exit) => this.fail(describeExit(exit, agent.stderrTail())));
    // An agent that closes its output but lives on is as gone as one that exited.
    void this.connection.closed.then(async () => {
      const gone = await Promise.race([
        agent.exited.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_WAIT_MS).unref()),
      ]);
      if (!gone) this.fail("closed its ACP output");
    });
  }

  /** The process lives and speaks ACP: a follow-up may prompt it. */
  get alive(): boolean {
    return !this.closing && this.failure.reason === undefined;
  }

  /** Ends the session's process and its group; the session is of no further use. */
  async close(): Promise<void> {
    this.closing = true;
    this.connection.close();
    await this.options.agent.kill();
  }

  /** The first failure wins; the process goes with it (it may still be running after garbage). */
  fail(reason: string): void {
    if (this.closing || this.failure.reason !== undefined) return;
    this.failure.fail(reason);
    void this.options.agent.kill();
  }

  private onUpdate(params: SessionNotification): void {
    if (this.replaying) {
      this.replayed += 1;
      return;
    }
    if (this.sessionId !== "" && params.sessionId !== this.sessionId) return;
    this.collector.onUpdate(params.update);
  }

  private answerPermission(params: RequestPermissionRequest): RequestPermissionResponse {
    const outcome = decidePermission(params.options, { cancelling: this.cancelling });
    this.collector.activity.add("permission", {
      toolCall: params.toolCall,
      options: params.options.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
      outcome,
    });
    return { outcome };
  }
}
