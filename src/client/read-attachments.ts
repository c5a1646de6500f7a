// The I/O half of attachments (rule 3): read each `-f` file, after checking the sizes on disk, so a huge file is
// refused before it is read. attachFiles decides.
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { InputError } from "../errors.js";
import { type AttachmentFile, attachFiles, checkAttachmentTotal } from "./attachments.js";

export async function readAttachments(cwd: string, paths: readonly string[]): Promise<AttachmentFile[]> {
  const sized: { name: string; path: string; size: number }[] = [];
  for (const name of paths) {
    const path = resolve(cwd, name);
    let size: number;
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new InputError(`-f ${name}: not a file; attach text files only`);
      size = info.size;
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(
        `-f ${name}: cannot read it (${(error as NodeJS.ErrnoException).code ?? "error"}); check the path`,
        {
          cause: error,
        },
      );
    }
    sized.push({ name, path, size });
  }
  checkAttachmentTotal(sized.reduce((sum, file) => sum + file.size, 0));
  return Promise.all(sized.map(async (file) => ({ name: file.name, bytes: await readFile(file.path) })));
}

/** The text to send: `text` with every `-f` file appended and marked (or `text` alone without files). */
export async function withAttachments(cwd: string, text: string, paths: readonly string[]): Promise<string> {
  if (paths.length === 0) return text;
  return attachFiles(text, await readAttachments(cwd, paths));
}
