// Caps on client connections: in total (checked as a connection is accepted) and per lease (checked when a
// request or CONNECT names its lease), so neither one client nor one sandbox can use up the proxy's file handles
// and cut every other sandbox's only way out. Counting only; the server writes the refusals.

export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerLease: number;
}

export interface ConnectionLedger<S extends object> {
  /** A new client connection: false when the proxy already holds `maxConnections`. */
  admit(socket: S): boolean;
  /**
   * A request or CONNECT on `socket` names `lease`: false when that lease already holds `maxConnectionsPerLease`
   * other connections. A connection counts for the lease of its latest request.
   */
  claim(socket: S, lease: string): boolean;
  /** The connection closed. */
  release(socket: S): void;
  open(): number;
  heldBy(lease: string): number;
}

export function createConnectionLedger<S extends object>(limits: ConnectionLimits): ConnectionLedger<S> {
  const admitted = new Set<S>();
  const leaseOf = new Map<S, string>();
  const perLease = new Map<string, number>();
  const drop = (socket: S) => {
    const lease = leaseOf.get(socket);
    if (lease === undefined) return;
    leaseOf.delete(socket);
    const left = (perLease.get(lease) ?? 1) - 1;
    if (left > 0) perLease.set(lease, left);
    else perLease.delete(lease);
  };
  return {
    admit(socket) {
      if (admitted.size >= limits.maxConnections) return false;
      admitted.add(socket);
      return true;
    },
    claim(socket, lease) {
      if (leaseOf.get(socket) === lease) return true;
      if ((perLease.get(lease) ?? 0) >= limits.maxConnectionsPerLease) return false;
      drop(socket);
      leaseOf.set(socket, lease);
      perLease.set(lease, (perLease.get(lease) ?? 0) + 1);
      return true;
    },
    release(socket) {
      admitted.delete(socket);
      drop(socket);
    },
    open: () => admitted.size,
    heldBy: (lease) => perLease.get(lease) ?? 0,
  };
}
