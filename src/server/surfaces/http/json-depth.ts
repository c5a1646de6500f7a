// How deeply a JSON text nests, read before it is parsed: a body nested thousands deep parses, but anything that
// walks the result recursively afterwards (JSON.stringify, zod, the handlers) overflows the stack.

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text in `bytes` (UTF-8) opens more than `maxDepth` objects and arrays inside one another
 * (pure). Brackets inside strings do not count. The bytes need not be valid JSON: the parser judges that after.
 * UTF-8 never puts an ASCII byte inside a multi-byte character, so reading bytes is reading characters here.
 */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
  }
  return false;
}
