// Which ACP session a task's agent had and how far into the conversation it got, kept beyond one agent process,
// so that the next process can `session/load` it and be sent only what it has not seen. In memory by default
// (the service's lifetime); a store-backed one keeps it across restarts.

export interface RememberedSession {
  sessionId: string;
  /** The last conversation entry the session was sent. */
  seenThrough: string | null;
}

export interface SessionMemory {
  get(taskId: string): Promise<RememberedSession | undefined>;
  set(taskId: string, session: RememberedSession): Promise<void>;
}

export function createSessionMemory(): SessionMemory {
  const sessions = new Map<string, RememberedSession>();
  return {
    get: async (taskId) => sessions.get(taskId),
    set: async (taskId, session) => {
      sessions.set(taskId, session);
    },
  };
}
