// The candidate scan: one pass over the text's low bytes, sampling a 4-byte word every SAMPLE_STEP characters,
// that lists the places worth a closer look (samples whose gram may be indexed; ends of long runs without
// spaces or quotes) and notes whether any control character is present. Verification happens in find-hits.ts.
// Two engines compute the same list: a WebAssembly kernel (scan-kernel.wat, the default) and plain JavaScript
// (the fallback where WebAssembly is unavailable, e.g. `node --jitless`).
import { GRAM, SAMPLE_STEP } from "./anchor.js";
import { type GramIndex, HASH_MULTIPLIER, SECOND_HASH_MULTIPLIER } from "./gram-index.js";
import { SCAN_KERNEL_WASM_BASE64 } from "./scan-kernel.generated.js";

export type ScanEngine = "wasm" | "js";

/**
 * Positions are "padded": LEAD newlines stand before the text (so anchors with two characters of left context
 * match at its start) and newlines after it. Padded position p is text offset p - LEAD; samples sit at
 * multiples of SAMPLE_STEP.
 */
export const LEAD = 2;
/** Set on a candidate that ends a run; the rest is the padded position of the run's last sample. */
export const RUN_FLAG = 0x80000000 | 0;
/** A quoted value needs at least 32 characters; that many hold at least this many whole samples. */
export const RUN_SAMPLES = Math.floor((32 - GRAM) / SAMPLE_STEP);

/** Text offsets of 16-character blocks that together hold every control character, ascending. */
export interface ControlBlocks {
  list: Int32Array;
  count: number;
}

export interface Candidates {
  /**
   * Two entries per candidate, in text order: a gram candidate's padded position and its 4-byte word (low
   * bytes, little-endian), or a run end's padded position with RUN_FLAG set and 0.
   */
  list: Int32Array;
  count: number;
  /** The text may hold control characters (strip them and scan again). */
  control: boolean;
}

/** The padding that stands before and after the text (a newline). */
export const NEWLINE = 10;
const CONTROL_CLASS = 1;
const QUOTE_CLASS = 2;
/** A run end is a candidate only when a quote stands this close before the run's first sample. */
const QUOTE_REACH = SAMPLE_STEP + 2;

/** A control character the sanitiser removes: below 0x20 except tab and newline, or 0x7f to 0x9f. */
export function isControlCode(c: number): boolean {
  return (c < 0x20 && c !== 9 && c !== 10) || (c >= 0x7f && c <= 0x9f);
}

export function isQuoteCode(b: number): boolean {
  return b === 0x22 || b === 0x27 || b === 0x60; // " ' `
}

/** A growable list of int32 values, reused from scan to scan (the result is read before the next scan). */
class IntList {
  values = new Int32Array(1024);
  length = 0;

  /** Room for `extra` more values. */
  reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.values.length) return;
    const grown = new Int32Array(Math.max(needed, this.values.length * 2));
    grown.set(this.values.subarray(0, this.length));
    this.values = grown;
  }
}

// --- JavaScript engine ---------------------------------------------------------------------------------

/** Per 16-bit pair of bytes: 1 when either byte is a control character (built on the first JavaScript scan). */
let pairControl: Uint8Array | undefined;

function buildPairControl(): Uint8Array {
  const single = Uint8Array.from({ length: 256 }, (_, b) => (isControlCode(b) ? 1 : 0));
  const pairs = new Uint8Array(65536);
  for (let p = 0; p < 65536; p++) pairs[p] = (single[p & 0xff] as number) | (single[p >>> 8] as number);
  return pairs;
}

let scratch: Buffer = Buffer.alloc(0);
const jsList = new IntList();

function paddedLatin1(text: string): DataView {
  const needed = text.length + LEAD + 4;
  if (scratch.length < needed) scratch = Buffer.allocUnsafe(Math.max(needed, scratch.length * 2, 1 << 16));
  // Each UTF-16 unit lands on one byte (its low byte), so byte offsets are padded positions.
  scratch.fill(NEWLINE, 0, LEAD);
  scratch.write(text, LEAD, "latin1");
  scratch.fill(NEWLINE, text.length + LEAD, needed);
  return new DataView(scratch.buffer, scratch.byteOffset, needed);
}

function quoteBefore(view: DataView, first: number): boolean {
  for (let p = Math.max(0, first - QUOTE_REACH); p < first; p++)
    if (isQuoteCode(view.getUint8(p))) return true;
  return false;
}

export function scanCandidatesJs(index: GramIndex, text: string): Candidates {
  pairControl ??= buildPairControl();
  const PAIR_CONTROL = pairControl;
  const view = paddedLatin1(text);
  const { table, shift } = index;
  const runSamples = index.runs ? RUN_SAMPLES : 0;
  const last = text.length + LEAD - 1;
  const out = jsList;
  out.length = 0;
  out.reserve(4 * (Math.floor(last / SAMPLE_STEP) + 1)); // at most a gram candidate and a run end per sample
  const list = out.values;
  let next = 0;
  let run = 0;
  let control = 0;
  for (let i = 0; i <= last; i += SAMPLE_STEP) {
    const gram = view.getUint32(i, true);
    // Exact per-byte word tests: a byte of 0x7f or above, a byte below "+" (space, quotes, punctuation,
    // controls) and a byte below 0x20 (controls, newline, tab).
    const high = ((((gram & 0x7f7f7f7f) + 0x01010101) | gram) & 0x80808080) >>> 0;
    if ((((gram - 0x2b2b2b2b) & ~gram & 0x80808080) | high) === 0) {
      if (++run === runSamples && quoteBefore(view, i - SAMPLE_STEP * (runSamples - 1))) {
        list[next++] = i | RUN_FLAG;
        list[next++] = 0;
      }
    } else {
      run = 0;
      if ((((gram - 0x20202020) & ~gram & 0x80808080) | high) !== 0) {
        control |= (PAIR_CONTROL[gram & 0xffff] as number) | (PAIR_CONTROL[gram >>> 16] as number);
      }
    }
    const bit = Math.imul(gram, HASH_MULTIPLIER) >>> shift;
    if (((table[bit >>> 5] as number) & (1 << (bit & 31))) === 0) continue;
    const second = Math.imul(gram, SECOND_HASH_MULTIPLIER) >>> shift;
    if (((table[second >>> 5] as number) & (1 << (second & 31))) !== 0) {
      list[next++] = i;
      list[next++] = gram;
    }
  }
  out.length = next;
  return { list, count: next / 2, control: control !== 0 };
}

// --- WebAssembly engine --------------------------------------------------------------------------------

/** The part of the WebAssembly API used here (the TypeScript DOM library, which declares it, is not loaded). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

interface KernelExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  run: { value: number };
  control: { value: number };
  scan(
    at: number,
    to: number,
    table: number,
    shift: number,
    runSamples: number,
    out: number,
    bias: number,
  ): number;
  controls(at: number, to: number, out: number, bias: number): number;
}

/** Text is copied into the kernel's memory at most this many bytes at a time, so memory stays small. */
const SEGMENT_BYTES = 1 << 18;
const MIN_SEGMENT_BYTES = 1 << 12;
/** Bytes before a segment that the kernel may read: a run's first sample and the quote before it. */
const CONTEXT_BYTES = 32;
const TABLE_AT = 256;
const PAGE = 65536;

const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
let kernelModule: object | null | undefined;

/** The compiled kernel, or null where WebAssembly is unavailable (e.g. `node --jitless`). */
function compileKernel(): object | null {
  if (kernelModule === undefined) {
    try {
      kernelModule =
        wasm === undefined ? null : new wasm.Module(Buffer.from(SCAN_KERNEL_WASM_BASE64, "base64"));
    } catch {
      kernelModule = null;
    }
  }
  return kernelModule;
}

/** WebAssembly is usable in this process (otherwise every scan runs the JavaScript engine). */
export function wasmAvailable(): boolean {
  return compileKernel() !== null;
}

class WasmScanner {
  private readonly kernel: KernelExports;
  private readonly textAt: number;
  /** Bytes of text the memory holds at once (grows with the texts seen, up to SEGMENT_BYTES). */
  private segmentBytes = 0;
  private outAt = 0;
  private bytes: Buffer = Buffer.alloc(0);
  private words = new Int32Array(0);
  private readonly list = new IntList();
  private readonly blocks = new IntList();

  constructor(
    api: WasmApi,
    module: object,
    private readonly index: GramIndex,
  ) {
    this.kernel = new api.Instance(module).exports as KernelExports;
    this.textAt = TABLE_AT + index.table.byteLength + CONTEXT_BYTES;
    this.reserve(MIN_SEGMENT_BYTES);
    for (let b = 0; b < 256; b++) {
      this.bytes[b] = (isControlCode(b) ? CONTROL_CLASS : 0) | (isQuoteCode(b) ? QUOTE_CLASS : 0);
    }
    this.bytes.set(
      new Uint8Array(index.table.buffer, index.table.byteOffset, index.table.byteLength),
      TABLE_AT,
    );
  }

  /** Makes room for segments of `wanted` bytes (rounded up to a power of two, at most SEGMENT_BYTES). */
  private reserve(wanted: number): void {
    if (wanted <= this.segmentBytes || this.segmentBytes === SEGMENT_BYTES) return;
    let segment = Math.max(MIN_SEGMENT_BYTES, this.segmentBytes);
    while (segment < wanted && segment < SEGMENT_BYTES) segment *= 2;
    this.segmentBytes = segment;
    // A sample reads GRAM - 1 bytes past the segment and a control block up to 15.
    this.outAt = this.textAt + segment + 32;
    // At most a gram candidate and a run end per sample, two i32 each.
    const end = this.outAt + 2 * (segment / SAMPLE_STEP + 1) * 8;
    const memory = this.kernel.memory;
    const pages = Math.ceil(end / PAGE) - memory.buffer.byteLength / PAGE;
    if (pages > 0) memory.grow(pages);
    this.bytes = Buffer.from(memory.buffer);
    this.words = new Int32Array(memory.buffer);
  }

  /**
   * Copies padded positions [from - CONTEXT_BYTES, to + GRAM) of the text's low bytes to textAt -
   * CONTEXT_BYTES; newlines stand before and after the text.
   */
  private load(text: string, from: number, to: number): void {
    const { bytes, textAt } = this;
    let at = textAt - CONTEXT_BYTES;
    let position = from - CONTEXT_BYTES;
    if (position < LEAD) {
      bytes.fill(NEWLINE, at, at + LEAD - position);
      at += LEAD - position;
      position = LEAD;
    }
    const first = position - LEAD;
    const last = Math.min(text.length, to + GRAM - LEAD);
    if (last > first) {
      const piece = first === 0 && last === text.length ? text : text.slice(first, last);
      at += bytes.write(piece, at, "latin1");
    }
    bytes.fill(NEWLINE, at, textAt + (to - from) + GRAM);
  }

  scan(text: string): Candidates {
    const { kernel, index, list } = this;
    const runSamples = index.runs ? RUN_SAMPLES : 0x7fffffff; // a run never gets that long
    list.length = 0;
    kernel.run.value = 0;
    kernel.control.value = 0;
    this.eachSegment(text, (at, to, bias) => {
      const found = kernel.scan(at, to, TABLE_AT, index.shift, runSamples, this.outAt, bias);
      this.collect(list, 2 * found);
    });
    return { list: list.values, count: list.length / 2, control: kernel.control.value !== 0 };
  }

  controlBlocks(text: string): ControlBlocks {
    const { kernel, blocks } = this;
    blocks.length = 0;
    this.eachSegment(text, (at, to, bias) => {
      this.collect(blocks, kernel.controls(at, to, this.outAt, bias - LEAD));
    });
    return { list: blocks.values, count: blocks.length };
  }

  /** Loads each segment of the text and calls `scan` with its addresses and the bias to padded positions. */
  private eachSegment(text: string, scan: (at: number, to: number, bias: number) => void): void {
    const total = text.length + LEAD;
    this.reserve(total);
    for (let from = 0; from < total; from += this.segmentBytes) {
      const to = Math.min(total, from + this.segmentBytes);
      this.load(text, from, to);
      scan(this.textAt, this.textAt + (to - from), from - this.textAt);
    }
  }

  /** Appends the `count` values the kernel wrote at outAt. */
  private collect(into: IntList, count: number): void {
    into.reserve(count);
    into.values.set(this.words.subarray(this.outAt / 4, this.outAt / 4 + count), into.length);
    into.length += count;
  }
}

const wasmScanners = new WeakMap<GramIndex, WasmScanner>();

function wasmScannerFor(index: GramIndex): WasmScanner | undefined {
  let scanner = wasmScanners.get(index);
  if (scanner === undefined) {
    const module = compileKernel();
    if (module === null || wasm === undefined) return undefined;
    scanner = new WasmScanner(wasm, module, index);
    wasmScanners.set(index, scanner);
  }
  return scanner;
}

/** The candidates in `text`; `engine` "wasm" falls back to JavaScript where WebAssembly is unavailable. */
export function scanCandidates(index: GramIndex, text: string, engine: ScanEngine = "wasm"): Candidates {
  const scanner = engine === "wasm" ? wasmScannerFor(index) : undefined;
  return scanner === undefined ? scanCandidatesJs(index, text) : scanner.scan(text);
}

/** Where the control characters are, from the kernel; undefined when the JavaScript engine is in use. */
export function controlBlocks(
  index: GramIndex,
  text: string,
  engine: ScanEngine = "wasm",
): ControlBlocks | undefined {
  return engine === "wasm" ? wasmScannerFor(index)?.controlBlocks(text) : undefined;
}
