// Dials exactly the addresses the policy checked, in order, each with the connect time-out. An address literal
// never goes through a resolver, so what is dialled is what was checked.
import { connect, type Socket } from "node:net";

export class DialError extends Error {
  override readonly name = "DialError";
  readonly timedOut: boolean;
  constructor(message: string, timedOut: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.timedOut = timedOut;
  }
}

function dialOne(address: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port, noDelay: true });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new DialError(`connecting to ${address} port ${port} took over ${timeoutMs} ms`, true));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(
        new DialError(`cannot connect to ${address} port ${port}: ${error.message}`, false, { cause: error }),
      );
    });
  });
}

/** Tries each checked address in turn; returns the socket and the address it reached. */
export async function dialChecked(
  addresses: readonly string[],
  port: number,
  timeoutMs: number,
): Promise<{ socket: Socket; address: string }> {
  let last: DialError | undefined;
  for (const address of addresses) {
    try {
      return { socket: await dialOne(address, port, timeoutMs), address };
    } catch (error) {
      last = error as DialError;
    }
  }
  throw last ?? new DialError("no address to dial", false);
}
