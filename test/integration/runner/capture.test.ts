// The runner's output capture opens the sanitiser (and so builds its index) only when output arrives: a quiet
// startup script, the common fast case, never pays for the index.
import { describe, expect, it } from "vitest";
import { OutputCapture } from "../../../runner/src/capture.js";
import { createSanitiser } from "../../../src/evidence/index.js";

function countingCapture() {
  let opened = 0;
  const capture = new OutputCapture(() => {
    opened++;
    return createSanitiser({ secrets: [{ name: "APP_SECRET", value: "canary-capture-123456" }] }).stream();
  });
  return { capture, opened: () => opened };
}

describe("output capture", () => {
  it("a script with no output never opens the sanitiser", () => {
    const { capture, opened } = countingCapture();
    capture.write(Buffer.alloc(0));
    const output = capture.finish(false);
    expect(opened()).toBe(0);
    expect(output).toEqual({
      bytes: 0,
      lines: 0,
      truncated: false,
      head: "",
      tail: "",
      stoppedReadingAfterExit: false,
    });
    expect(capture.redactions).toEqual({});
  });

  it("output opens it once, on the first chunk, and is sanitised", () => {
    const { capture, opened } = countingCapture();
    capture.write(Buffer.from("using canary-capture-"));
    capture.write(Buffer.from("123456 now\n"));
    expect(opened()).toBe(1);
    const output = capture.finish(false);
    expect(output.head).toBe("using [REDACTED:APP_SECRET] now\n");
    expect(capture.redactions).toEqual({ APP_SECRET: 1 });
  });
});
