// Where each queued task stands in its workspace's queue (pure): the engine starts the oldest queued turns first
// (domain/tasks/engine.ts `promote`, by turn seq), so a task's place is its queued turn's rank in that order.

export interface QueuedTurn {
  taskId: string;
  seq: number;
}

export interface QueuePlace {
  /** 1 is the next to start. */
  position: number;
  /** How many turns wait in the workspace's queue. */
  of: number;
}

export function assignQueuePositions(turns: readonly QueuedTurn[]): Map<string, QueuePlace> {
  const ordered = [...turns].sort((a, b) => a.seq - b.seq);
  const places = new Map<string, QueuePlace>();
  ordered.forEach((turn, index) => {
    if (!places.has(turn.taskId)) places.set(turn.taskId, { position: index + 1, of: ordered.length });
  });
  return places;
}
