// Bounded appends (src/safefs/append.ts) on real files, links and FIFOs: whole records or nothing, never
// through a link, never blocking on a FIFO, never past the bound.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InputError, UnsafePathError } from "../../../src/errors.js";
import { appendFileBoundedSync } from "../../../src/safefs/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "baton-append-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const limit = { maxBytes: 64 };

describe("appendFileBoundedSync", () => {
  it("creates the file 0600 and appends each record after the last", () => {
    const path = join(dir, "requests.jsonl");
    appendFileBoundedSync(path, "one\n", limit);
    appendFileBoundedSync(path, "two\n", limit);
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("appends after what another writer put there meanwhile (O_APPEND, not a remembered offset)", () => {
    const path = join(dir, "requests.jsonl");
    appendFileBoundedSync(path, "one\n", limit);
    writeFileSync(path, "replaced by someone else\n");
    appendFileBoundedSync(path, "two\n", limit);
    expect(readFileSync(path, "utf8")).toBe("replaced by someone else\ntwo\n");
  });

  it("refuses a record that would pass the bound, whole, leaving the file as it was", () => {
    const path = join(dir, "requests.jsonl");
    appendFileBoundedSync(path, `${"a".repeat(61)}\n`, limit);
    expect(() => appendFileBoundedSync(path, "bc\n", limit)).toThrow(InputError);
    expect(() => appendFileBoundedSync(path, "bc\n", limit)).toThrow("limit of 64");
    expect(readFileSync(path, "utf8")).toBe(`${"a".repeat(61)}\n`);
    appendFileBoundedSync(path, "b\n", limit);
    expect(readFileSync(path, "utf8")).toBe(`${"a".repeat(61)}\nb\n`);
  });

  it("counts bytes, not characters", () => {
    const path = join(dir, "requests.jsonl");
    expect(() => appendFileBoundedSync(path, "é".repeat(33), limit)).toThrow(InputError);
    appendFileBoundedSync(path, "é".repeat(32), limit);
    expect(statSync(path).size).toBe(64);
  });

  it("refuses a symbolic link, leaving its target untouched", () => {
    const target = join(dir, "elsewhere");
    writeFileSync(target, "keep\n");
    symlinkSync(target, join(dir, "requests.jsonl"));
    expect(() => appendFileBoundedSync(join(dir, "requests.jsonl"), "x\n", limit)).toThrow(UnsafePathError);
    expect(readFileSync(target, "utf8")).toBe("keep\n");
  });

  it("refuses a FIFO at once instead of waiting for a reader", () => {
    const fifo = join(dir, "requests.jsonl");
    execFileSync("mkfifo", [fifo]);
    expect(() => appendFileBoundedSync(fifo, "x\n", limit)).toThrow(UnsafePathError);
  });

  it("refuses a folder, and a file whose folder does not exist, naming the path", () => {
    expect(() => appendFileBoundedSync(dir, "x\n", limit)).toThrow(dir);
    expect(() => appendFileBoundedSync(join(dir, "none", "requests.jsonl"), "x\n", limit)).toThrow(
      `the folder of ${join(dir, "none", "requests.jsonl")} does not exist`,
    );
  });
});
