// The candidate scan's two engines (WebAssembly kernel, JavaScript fallback) must list exactly the same
// candidates, so the sanitiser's output never depends on which one ran; the kernel's committed bytes must be
// what scan-kernel.wat assembles to; and without WebAssembly the sanitiser still redacts.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanCandidates, scanCandidatesJs } from "../../../src/evidence/candidate-scan.js";
import { DETECTORS } from "../../../src/evidence/detectors.js";
import { buildGramIndex, type GramIndex } from "../../../src/evidence/gram-index.js";
import { createSanitiser, encodeSecretForms, wasmAvailable } from "../../../src/evidence/index.js";
import { SCAN_KERNEL_WASM_BASE64 } from "../../../src/evidence/scan-kernel.generated.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const SECRET = "Zq8-canary/Value+42&kx=y";
const index = buildGramIndex(
  encodeSecretForms(SECRET).map((form) => ({ label: "CANARY", form: form.text, base64: form.base64 })),
  DETECTORS,
);

/** The candidate list as plain numbers (the engines reuse their buffers between scans). */
function candidates(engine: "wasm" | "js", target: GramIndex, text: string) {
  const scan = engine === "js" ? scanCandidatesJs(target, text) : scanCandidates(target, text, "wasm");
  return { list: Array.from(scan.list.subarray(0, 2 * scan.count)), control: scan.control };
}

// Text made of what the scan treats specially: base64 characters (runs), quotes, spaces and newlines, control
// characters, and non-Latin-1 characters whose low byte looks like a quote or a control character.
const pieces = fc.constantFrom(
  "a",
  "Q",
  "7",
  "+",
  "/",
  "_",
  "-",
  "=",
  '"',
  "'",
  "`",
  " ",
  "\n",
  "\t",
  "\x1b[31m",
  "\x1b[",
  "\x1b[?25l",
  "\x1b]0;title\x07",
  "\x1b]8;;link\x1b\\",
  "\x1bP1$r\x1b\\",
  "\x1b(B",
  "\x1b",
  "\x07",
  "\x9b",
  "\x9b1;2H",
  "é",
  "\u0122",
  "\u0a1b",
  "✔",
  "://",
  "user:pa55w0rd@host",
  "ghp_",
  "AKIA",
  "eyJ",
  "token=",
  "Bearer ",
  SECRET,
  Buffer.from(SECRET).toString("base64"),
  encodeURIComponent(SECRET),
  '"QmFzZTY0IGxvb2tpbmcgdmFsdWUgd2l0aCBEaWdpdHMgMTIz"',
  // A token nobody named, base64-encoded: decoded and scanned by both engines' candidates.
  Buffer.from("export T=ghp_0123456789abcdefghijABCDEFGHIJ012345\n").toString("base64"),
  Buffer.from(`${"x".repeat(50)} npm_0123456789abcdefghijABCDEFGHIJ012345`).toString("base64url"),
);
const text = fc.array(pieces, { maxLength: 200 }).map((parts) => parts.join(""));

describe("candidate scan engines", () => {
  it("WebAssembly is available under this Node, so the default engine is the kernel", () => {
    expect(wasmAvailable()).toBe(true);
  });

  it("list the same candidates and control flag for any text", () => {
    fc.assert(
      fc.property(text, (sample) => {
        expect(candidates("wasm", index, sample)).toEqual(candidates("js", index, sample));
      }),
      { numRuns: 400 },
    );
  });

  it("agree across the kernel's segment boundaries, where a secret may straddle two segments", () => {
    const segment = 1 << 18; // SEGMENT_BYTES in candidate-scan.ts
    const line = `retrying with ${SECRET} and "QmFzZTY0IGxvb2tpbmcgdmFsdWUgd2l0aCBEaWdpdHMgMTIz"\n`;
    const sanitiser = createSanitiser({ secrets: [{ name: "CANARY", value: SECRET }] });
    for (let shift = -60; shift <= 8; shift += 1) {
      const filler = "x".repeat(segment + shift);
      const sample = `${filler}${line}${filler}${line}`;
      expect(candidates("wasm", index, sample)).toEqual(candidates("js", index, sample));
      const result = sanitiser.sanitise(sample);
      expect(result.text).not.toContain(SECRET);
      expect(result.redactions).toEqual({ CANARY: 2, high_entropy_string: 2 });
    }
  });

  it("give the same sanitised text and counts through createSanitiser", () => {
    const wasm = createSanitiser({ secrets: [{ name: "CANARY", value: SECRET }], engine: "wasm" });
    const js = createSanitiser({ secrets: [{ name: "CANARY", value: SECRET }], engine: "js" });
    fc.assert(
      fc.property(text, (sample) => {
        expect(wasm.sanitise(sample)).toEqual(js.sanitise(sample));
      }),
      { numRuns: 300 },
    );
  });

  it("the committed kernel is what scan-kernel.wat assembles to (regenerate: node scripts/generate-scan-kernel.mjs)", async () => {
    const { assembleScanKernel, renderScanKernelModule } = await import(
      join(PROJECT_ROOT, "scripts", "generate-scan-kernel.mjs")
    );
    const bytes: Buffer = await assembleScanKernel();
    expect(bytes.toString("base64")).toBe(SCAN_KERNEL_WASM_BASE64);
    const committed = readFileSync(join(PROJECT_ROOT, "src", "evidence", "scan-kernel.generated.ts"), "utf8");
    expect(committed).toBe(renderScanKernelModule(bytes));
  });

  it("without WebAssembly (node --jitless) the JavaScript engine redacts the same way", () => {
    const script = `
      import { createSanitiser, wasmAvailable } from ${JSON.stringify(join(PROJECT_ROOT, "dist", "src", "evidence", "index.js"))};
      const sanitiser = createSanitiser({ secrets: [{ name: "CANARY", value: ${JSON.stringify(SECRET)} }] });
      const result = sanitiser.sanitise("a ${SECRET} b ghp_0123456789abcdefghijABCDEFGHIJ012345 c");
      console.log(JSON.stringify({ wasm: typeof WebAssembly, available: wasmAvailable(), ...result }));
    `;
    // stderr is piped (not shown): V8 warns there that --jitless turns WebAssembly off.
    const output = execFileSync(process.execPath, ["--jitless", "--input-type=module", "-e", script], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(JSON.parse(output)).toEqual({
      wasm: "undefined",
      available: false,
      text: "a [REDACTED:CANARY] b [REDACTED:github_token] c",
      redactions: { CANARY: 1, github_token: 1 },
    });
    expect(output).not.toContain(SECRET);
  });
});
