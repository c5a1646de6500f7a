// The variables without credentials of the Docker boxes handed out of the pool, by container id: their container
// configuration was fixed empty before any task, so these travel with each command instead. Kept in the service's
// state folder (mode 0600) so the next run, adopting the boxes, gives them the same; in memory only without one.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";

export const BOX_ENV_FILE = "docker-sandbox-box-env.json";

const RecordSchema = z.record(z.string(), z.record(z.string(), z.string()));

export interface BoxEnvRecord {
  get(ref: string): Record<string, string> | undefined;
  set(ref: string, env: Record<string, string>): Promise<void>;
  delete(ref: string): Promise<void>;
  clear(): Promise<void>;
}

export async function openBoxEnvRecord(path: string | undefined): Promise<BoxEnvRecord> {
  const entries = new Map<string, Record<string, string>>();
  if (path) {
    const text = await readFile(path, "utf8").catch(() => undefined);
    const parsed = text === undefined ? undefined : RecordSchema.safeParse(JSON.parse(text));
    for (const [ref, env] of Object.entries(parsed?.success ? parsed.data : {})) entries.set(ref, env);
  }
  // Writes one after another, each the whole map at its time: the file never goes back to an older state.
  let writing: Promise<void> = Promise.resolve();
  const save = () => {
    if (!path) return Promise.resolve();
    const text = `${JSON.stringify(Object.fromEntries(entries))}\n`;
    writing = writing.then(async () => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text, { mode: 0o600 });
    });
    return writing;
  };
  return {
    get: (ref) => entries.get(ref),
    async set(ref, env) {
      entries.set(ref, env);
      await save();
    },
    async delete(ref) {
      if (entries.delete(ref)) await save();
    },
    async clear() {
      entries.clear();
      if (path) {
        await writing;
        await rm(path, { force: true });
      }
    },
  };
}
