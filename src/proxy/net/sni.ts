// Reads the server name (SNI) from the first bytes of a TLS ClientHello, for the audit line of an opaque tunnel.
// Pure; returns null for anything that is not a complete ClientHello with a host_name entry.

export function readClientHelloSni(data: Buffer): string | null {
  try {
    // TLS record: type 22 (handshake), version (2), length (2); handshake: type 1 (ClientHello), length (3).
    if (data.length < 43 || data[0] !== 22 || data[5] !== 1) return null;
    let at = 9 + 2 + 32; // handshake header, client version, random
    const sessionIdLength = data[at]!;
    at += 1 + sessionIdLength;
    const cipherSuitesLength = data.readUInt16BE(at);
    at += 2 + cipherSuitesLength;
    const compressionLength = data[at]!;
    at += 1 + compressionLength;
    const extensionsEnd = at + 2 + data.readUInt16BE(at);
    at += 2;
    while (at + 4 <= Math.min(extensionsEnd, data.length)) {
      const type = data.readUInt16BE(at);
      const length = data.readUInt16BE(at + 2);
      at += 4;
      if (type === 0) {
        // server_name: list length (2), then entries of type (1), length (2), name
        let entry = at + 2;
        const end = at + length;
        while (entry + 3 <= end) {
          const nameType = data[entry]!;
          const nameLength = data.readUInt16BE(entry + 1);
          if (nameType === 0) return data.subarray(entry + 3, entry + 3 + nameLength).toString("ascii");
          entry += 3 + nameLength;
        }
        return null;
      }
      at += length;
    }
    return null;
  } catch {
    return null;
  }
}

/** The most bytes of a ClientHello the proxy reads before the tunnel's first bytes go upstream. */
export const MAX_HELLO_BYTES = 16 * 1024;

export type HelloState =
  | { done: false }
  /** Not TLS (or not a handshake): the tunnel carries something else; nothing to read. */
  | { done: true; tls: false }
  /** A whole ClientHello, as one record (reassembled when the client split it across records). */
  | { done: true; tls: true; hello: Buffer }
  /** TLS whose hello does not fit in MAX_HELLO_BYTES: its server name cannot be read. */
  | { done: true; tls: true; hello: null };

/**
 * Whether the first bytes of a tunnel hold a whole ClientHello yet. A client may split its hello across several
 * TLS records (each a fragment of the handshake message); they are joined into one so the server name is read
 * from the whole message, not from a first fragment that does not reach the extensions. Pure.
 */
export function collectClientHello(data: Buffer): HelloState {
  if (data.length === 0) return { done: false };
  if (data[0] !== 22) return { done: true, tls: false };
  const fragments: Buffer[] = [];
  let at = 0;
  let joined = 0;
  while (at + 5 <= data.length) {
    if (data[at] !== 22) return { done: true, tls: true, hello: null };
    const length = data.readUInt16BE(at + 3);
    if (at + 5 + length > data.length) break;
    fragments.push(data.subarray(at + 5, at + 5 + length));
    joined += length;
    at += 5 + length;
    if (joined >= 4) {
      const message = Buffer.concat(fragments);
      const needed = 4 + message.readUIntBE(1, 3);
      if (message.length >= needed) {
        const header = Buffer.from([22, data[1]!, data[2]!, 0, 0]);
        header.writeUInt16BE(Math.min(needed, 0xffff), 3);
        return { done: true, tls: true, hello: Buffer.concat([header, message.subarray(0, needed)]) };
      }
    }
  }
  return data.length >= MAX_HELLO_BYTES ? { done: true, tls: true, hello: null } : { done: false };
}
