// A CGI program's answer (RFC 3875 section 6): header lines, a blank line, then the body. `parseCgiHeaders` is the
// pure part; `parseCgiHead` reads a stream up to the blank line and hands back the rest as the body.
import { PassThrough, type Readable } from "node:stream";

const MAX_HEAD_BYTES = 64 * 1024;

export interface CgiHead {
  status: number;
  headers: [string, string][];
}

/** The header block (without the blank line) as a status and headers; `Status: 404 Not Found` sets the status. */
export function parseCgiHeaders(block: string): CgiHead {
  let status = 200;
  const headers: [string, string][] = [];
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") {
      const code = Number.parseInt(value, 10);
      if (code >= 100 && code <= 599) status = code;
    } else headers.push([name, value]);
  }
  return { status, headers };
}

/** Reads the head off `stream`; null when it ends (or grows past 64 KiB) before the blank line. */
export function parseCgiHead(stream: Readable): Promise<(CgiHead & { body: Readable }) | null> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const crlf = buffered.indexOf("\r\n\r\n");
      const lf = buffered.indexOf("\n\n");
      const end =
        crlf >= 0 && (lf < 0 || crlf < lf) ? { at: crlf, length: 4 } : lf >= 0 ? { at: lf, length: 2 } : null;
      if (!end) {
        if (buffered.length > MAX_HEAD_BYTES) finish(null);
        return;
      }
      stream.off("data", onData);
      stream.pause();
      const body = new PassThrough();
      body.write(buffered.subarray(end.at + end.length));
      stream.pipe(body);
      stream.resume();
      finish({ ...parseCgiHeaders(buffered.subarray(0, end.at).toString("latin1")), body });
    };
    let done = false;
    const finish = (value: (CgiHead & { body: Readable }) | null) => {
      if (done) return;
      done = true;
      stream.off("end", onEnd);
      if (value === null) stream.destroy();
      resolve(value);
    };
    const onEnd = () => finish(null);
    stream.on("data", onData);
    stream.once("end", onEnd);
    stream.once("error", onEnd);
  });
}
