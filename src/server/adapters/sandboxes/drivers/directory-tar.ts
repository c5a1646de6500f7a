// A tar archive holding only directories (ustar headers, no file data): the Docker driver puts a checkout's
// parent folders into a box this way, owned by the agent, before the box starts, instead of running
// `mkdir -p` in it (a command costs the engine a process in the box; an archive does not).

const BLOCK = 512;

function field(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, length, "utf8");
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

/** The name as ustar holds it: up to 100 bytes, or a prefix of up to 155 and a name of up to 100. */
function splitName(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: "", name: path };
  for (let cut = path.lastIndexOf("/"); cut > 0; cut = path.lastIndexOf("/", cut - 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name };
  }
  throw new Error(`${path} is too long for a tar header`);
}

function directoryHeader(path: string, uid: number, gid: number, mtime: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const { prefix, name } = splitName(`${path.replace(/\/+$/, "")}/`);
  field(header, 0, 100, name);
  field(header, 100, 8, octal(0o755, 8));
  field(header, 108, 8, octal(uid, 8));
  field(header, 116, 8, octal(gid, 8));
  field(header, 124, 12, octal(0, 12));
  field(header, 136, 12, octal(mtime, 12));
  field(header, 148, 8, "        "); // counted as spaces while the checksum is summed
  field(header, 156, 1, "5");
  field(header, 257, 6, "ustar\0");
  field(header, 263, 2, "00");
  field(header, 345, 155, prefix);
  let sum = 0;
  for (const byte of header) sum += byte;
  field(header, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return header;
}

/**
 * An archive of `paths` (relative, e.g. `checkouts/acme/api`) and every folder above each, parents first, owned by
 * `uid:gid`, mode 0755.
 */
export function directoryTar(paths: readonly string[], uid: number, gid: number): Buffer {
  return Buffer.concat([directoryEntries(paths, uid, gid), Buffer.alloc(BLOCK * 2)]);
}

/** `directoryTar` without the end-of-archive blocks: the start of an archive whose members follow. */
export function directoryEntries(paths: readonly string[], uid: number, gid: number): Buffer {
  const all = new Set<string>();
  for (const path of paths) {
    const parts = path.split("/").filter((part) => part !== "" && part !== ".");
    if (parts.includes("..")) throw new Error(`${path} leaves the archive's root`);
    for (let depth = 1; depth <= parts.length; depth++) all.add(parts.slice(0, depth).join("/"));
  }
  const mtime = Math.floor(Date.now() / 1000);
  const headers = [...all].sort().map((path) => directoryHeader(path, uid, gid, mtime));
  return Buffer.concat(headers);
}
