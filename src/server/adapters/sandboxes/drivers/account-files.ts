// The machine's account files, read for the box uid check (box-uids.ts is pure and takes their text).
import { readFile } from "node:fs/promises";

export async function readAccountFiles(): Promise<{ passwd: string; group: string }> {
  return {
    passwd: await readFile("/etc/passwd", "utf8"),
    group: await readFile("/etc/group", "utf8").catch(() => ""),
  };
}
