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
