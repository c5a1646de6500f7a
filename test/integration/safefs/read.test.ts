// Reads of files Baton trusts, on real files, links and FIFOs: a FIFO answers at once instead of blocking.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InputError, UnsafePathError } from "../../../src/errors.js";
import { readFileSafeSync } from "../../../src/safefs/index.js";

let root: string;
let baton: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "baton-read-"));
  baton = join(root, ".baton");
  mkdirSync(join(baton, "handoffs"), { recursive: true, mode: 0o700 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const limit = { maxBytes: 1024 };

describe("readFileSafeSync", () => {
  it("reads a regular file and answers null for a missing file or folder", () => {
    writeFileSync(join(baton, "handoffs", "a.json"), "{}");
    expect(readFileSafeSync(baton, join(baton, "handoffs", "a.json"), limit)).toBe("{}");
    expect(readFileSafeSync(baton, join(baton, "handoffs", "b.json"), limit)).toBeNull();
    expect(readFileSafeSync(baton, join(baton, "state", "dockerfile", "x.json"), limit)).toBeNull();
  });

  it("refuses a FIFO at once instead of waiting for a writer", () => {
    const fifo = join(baton, "handoffs", "a.json");
    execFileSync("mkfifo", [fifo]);
    expect(() => readFileSafeSync(baton, fifo, limit)).toThrow(UnsafePathError);
    expect(() => readFileSafeSync(null, fifo, limit)).toThrow(`${fifo} is not a regular file (a FIFO)`);
  });

  it("refuses the file as a symbolic link, and a symbolic link folder on the way", () => {
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "a.json"), "{}");
    symlinkSync(join(outside, "a.json"), join(baton, "handoffs", "a.json"));
    expect(() => readFileSafeSync(null, join(baton, "handoffs", "a.json"), limit)).toThrow(
      "is a symbolic link",
    );
    symlinkSync(outside, join(baton, "evidence"));
    expect(() => readFileSafeSync(baton, join(baton, "evidence", "a.json"), limit)).toThrow(
      `${join(baton, "evidence")} is a symbolic link`,
    );
  });

  it("refuses a file larger than the bound", () => {
    writeFileSync(join(baton, "handoffs", "big.json"), "x".repeat(2048));
    expect(() => readFileSafeSync(baton, join(baton, "handoffs", "big.json"), limit)).toThrow(InputError);
  });
});
