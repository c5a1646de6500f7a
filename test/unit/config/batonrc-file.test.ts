// A checkout's .batonrc.json is the repository's file, read by the service (as root in a sandbox host) and by
// `baton env test`: a link must not make it read another file, and a FIFO must not hang it. Real files, links
// and FIFOs in a temporary folder.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BATONRC_MAX_BYTES } from "../../../src/config/batonrc.js";
import { readBatonrcFile } from "../../../src/config/batonrc-file.js";
import { InputError } from "../../../src/errors.js";

const tmp = mkdtempSync(join(tmpdir(), "baton-batonrc-file-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const CANARY = "canary-content-9f3e1";

function checkout(): string {
  return mkdtempSync(join(tmp, "checkout-"));
}

function refusal(dir: string): InputError {
  try {
    readBatonrcFile(dir);
  } catch (error) {
    return error as InputError;
  }
  throw new Error("expected a refusal");
}

describe("readBatonrcFile", () => {
  it("reads the regular file, and answers null when there is none", () => {
    const dir = checkout();
    expect(readBatonrcFile(dir)).toBeNull();
    writeFileSync(join(dir, ".batonrc.json"), '{"pre_clone":["true"]}');
    expect(readBatonrcFile(dir)).toBe('{"pre_clone":["true"]}');
  });

  it("refuses a symbolic link without reading what it points at", () => {
    const dir = checkout();
    const elsewhere = join(tmp, `outside-${Date.now()}`);
    writeFileSync(elsewhere, CANARY);
    symlinkSync(elsewhere, join(dir, ".batonrc.json"));
    const error = refusal(dir);
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toBe(
      `.batonrc.json in ${dir} must be a regular file in the checkout, not a symbolic link, FIFO or device; replace it with the JSON file itself`,
    );
    expect(error.message).not.toContain(CANARY);
  });

  it("refuses a FIFO at once instead of waiting for a writer", () => {
    const dir = checkout();
    execFileSync("mkfifo", [join(dir, ".batonrc.json")]);
    expect(refusal(dir).message).toContain("must be a regular file in the checkout");
  });

  it(`refuses a file over ${BATONRC_MAX_BYTES} bytes`, () => {
    const dir = checkout();
    writeFileSync(join(dir, ".batonrc.json"), " ".repeat(BATONRC_MAX_BYTES + 1));
    expect(refusal(dir).message).toBe(
      `.batonrc.json in ${dir} is larger than ${BATONRC_MAX_BYTES} bytes; keep to the keys docs/testing.md lists`,
    );
  });
});
