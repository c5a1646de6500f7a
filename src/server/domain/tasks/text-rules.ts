// Which characters a prompt, a follow-up or a title may hold (issue 21, G). Text reaches terminals, logs, the
// dashboard and agent programs: NUL and other C0 controls, DEL and the C1 controls (U+009B is a terminal's CSI, as
// ESC [ is) corrupt them or hide text, a lone surrogate cannot be
// stored as UTF-8 (it was silently turned into U+FFFD), and in a title, shown in lists and terminals, a
// bidirectional override or isolate makes the words after it read in another order than they were written.
// Pure: finds the first forbidden character; validate.ts turns it into the field's 400.

export type TextField = "prompt" | "text" | "title";

export interface ForbiddenCharacter {
  /** `U+202E`, or `U+D800` for a lone surrogate. */
  codePoint: string;
  /** What it is, in words a client developer recognises. */
  name: string;
  /** 1-based position in characters (code points), so a client can find it. */
  position: number;
}

/** Tab, line feed and carriage return are text; every other C0 control (U+0000 to U+001F) is not. */
const ALLOWED_CONTROLS = new Set([0x09, 0x0a, 0x0d]);
const DEL = 0x7f;
/** The C1 controls, U+0080 to U+009F. */
const isC1 = (unit: number) => unit >= 0x80 && unit <= 0x9f;

/** Bidirectional embedding and override (U+202A to U+202E) and isolate (U+2066 to U+2069) controls. */
const BIDI_CONTROLS: ReadonlyMap<number, string> = new Map([
  [0x202a, "left-to-right embedding"],
  [0x202b, "right-to-left embedding"],
  [0x202c, "pop directional formatting"],
  [0x202d, "left-to-right override"],
  [0x202e, "right-to-left override"],
  [0x2066, "left-to-right isolate"],
  [0x2067, "right-to-left isolate"],
  [0x2068, "first strong isolate"],
  [0x2069, "pop directional isolate"],
]);

const hex = (unit: number) => `U+${unit.toString(16).toUpperCase().padStart(4, "0")}`;

/** The first character `field` may not hold, or null when the text is clean. */
export function findForbiddenCharacter(text: string, field: TextField): ForbiddenCharacter | null {
  let position = 0;
  for (let i = 0; i < text.length; i++) {
    position += 1;
    const unit = text.charCodeAt(i);
    if (unit < 0x20 && !ALLOWED_CONTROLS.has(unit))
      return { codePoint: hex(unit), name: unit === 0 ? "NUL" : "control character", position };
    if (unit === DEL) return { codePoint: hex(unit), name: "DEL control character", position };
    if (isC1(unit)) return { codePoint: hex(unit), name: "C1 control character", position };
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i += 1; // a pair: one character outside the Basic Multilingual Plane, e.g. an emoji
        continue;
      }
      return { codePoint: hex(unit), name: "lone surrogate (half of a UTF-16 pair)", position };
    }
    if (field === "title") {
      const bidi = BIDI_CONTROLS.get(unit);
      if (bidi) return { codePoint: hex(unit), name: `${bidi} control`, position };
    }
  }
  return null;
}

/** The refusal's reason: which character, where, and the rule; never the text itself. */
export function describeForbiddenCharacter(field: TextField, found: ForbiddenCharacter): string {
  const rule =
    field === "title"
      ? "a title may hold no control characters (tab, line feed and carriage return aside), no lone surrogates and no bidirectional override or isolate controls (U+202A to U+202E, U+2066 to U+2069)"
      : `${field} may hold no control characters other than tab, line feed and carriage return, and no lone surrogates`;
  return `${field} holds a ${found.name} (${found.codePoint}) at character ${found.position}; ${rule}`;
}
