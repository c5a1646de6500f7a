// What the Docker driver says when no engine answers: the client's bare `connect ENOENT /var/run/docker.sock`
// reached the user as an unexpected failure. A failed connection to the engine becomes a ConfigError naming where
// the client looked (DOCKER_HOST, or the default socket) and the fixes; any other error is left as it is. Pure.
import { ConfigError } from "../../../../errors.js";

/** Node's codes for "nothing to connect to there" and "not allowed to connect". */
const NO_ENGINE = new Set(["ENOENT", "ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT"]);

interface ConnectFailure {
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
}

/** Where the client tried to reach the engine, as the error says (socket path, or host:port). */
function whereOf(failure: ConnectFailure, dockerHost: string | undefined): string {
  if (typeof failure.address === "string")
    return typeof failure.port === "number" ? `${failure.address}:${failure.port}` : failure.address;
  return dockerHost ? `DOCKER_HOST=${dockerHost}` : "the default socket";
}

/**
 * A ConfigError saying no Docker engine answers (or that its socket refuses this user), or null when `error` is
 * not a failure to reach the engine.
 */
export function describeEngineFailure(error: unknown, dockerHost: string | undefined): ConfigError | null {
  const failure = (error ?? {}) as ConnectFailure;
  if (
    typeof failure.code !== "string" ||
    (failure.syscall !== "connect" && failure.syscall !== "getaddrinfo")
  )
    return null;
  const where = whereOf(failure, dockerHost);
  const from = dockerHost ? " (from DOCKER_HOST)" : "";
  if (failure.code === "EACCES")
    return new ConfigError(
      `the Docker engine's socket ${where}${from} refuses this user (EACCES): run as root or as a member of the docker group, or use the namespace driver (baton env test --driver namespace; baton serve --sandbox-driver namespace)`,
      { cause: error },
    );
  if (!NO_ENGINE.has(failure.code)) return null;
  return new ConfigError(
    `no Docker engine answers at ${where}${from} (${failure.code}): start one (dockerd, or systemctl start docker) or point DOCKER_HOST at one, or use the namespace driver (baton env test --driver namespace; baton serve --sandbox-driver namespace), which needs bubblewrap and root`,
    { cause: error },
  );
}
