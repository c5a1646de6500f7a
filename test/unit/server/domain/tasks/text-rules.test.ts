// The text-field rule (issue 21, G; issue 35, C.17): prompts, follow-ups and titles hold no NUL, no C0 control other
// than tab, line feed and carriage return, no DEL or C1 control, no lone surrogate; titles also no bidirectional override or isolate control.
import { describe, expect, it } from "vitest";
import {
  describeForbiddenCharacter,
  findForbiddenCharacter,
  type TextField,
} from "../../../../../src/server/domain/tasks/text-rules.js";

const FIELDS: TextField[] = ["prompt", "text", "title"];

describe("characters no text field may hold", () => {
  it.each([
    ["NUL", "fix\u0000it", "U+0000", 4, "NUL"],
    ["U+0001 (start of heading)", "\u0001", "U+0001", 1, "control character"],
    ["backspace", "a\bb", "U+0008", 2, "control character"],
    ["vertical tab", "a\u000bb", "U+000B", 2, "control character"],
    ["form feed", "a\fb", "U+000C", 2, "control character"],
    ["escape (starts terminal sequences)", "red \u001b[31m", "U+001B", 5, "control character"],
    ["U+001F (unit separator)", "x\u001f", "U+001F", 2, "control character"],
    ["a lone high surrogate", "a\ud800b", "U+D800", 2, "lone surrogate (half of a UTF-16 pair)"],
    ["a lone low surrogate", "a\udc00", "U+DC00", 2, "lone surrogate (half of a UTF-16 pair)"],
    ["a high surrogate at the end", "abc\udbff", "U+DBFF", 4, "lone surrogate (half of a UTF-16 pair)"],
    ["two high surrogates in a row", "\ud83d\ud83d", "U+D83D", 1, "lone surrogate (half of a UTF-16 pair)"],
    ["a NUL after an emoji: positions count characters", "😀\u0000", "U+0000", 2, "NUL"],
    ["DEL", "a\u007fb", "U+007F", 2, "DEL control character"],
    ["U+0080, the first C1 control", "a\u0080", "U+0080", 2, "C1 control character"],
    ["next line (U+0085)", "a\u0085b", "U+0085", 2, "C1 control character"],
    ["CSI (U+009B, a terminal's ESC [)", "red \u009b31m", "U+009B", 5, "C1 control character"],
    ["U+009F, the last C1 control", "\u009f", "U+009F", 1, "C1 control character"],
  ])("%s is refused in every field", (_case, text, codePoint, position, name) => {
    for (const field of FIELDS)
      expect(findForbiddenCharacter(text, field), field).toEqual({ codePoint, position, name });
  });

  it.each([
    ["tab, line feed, carriage return", "a\tb\nc\r\nd"],
    ["an emoji (a surrogate pair)", "ship it 😀"],
    ["right-to-left letters", "שלום عالم"],
    ["the neighbours of DEL and C1: ~ (U+007E) and no-break space (U+00A0)", "a~b\u00a0c"],
    ["Latin-1 letters after the C1 range", "café ñ ü"],
    ["a zero-width joiner sequence", "👩‍💻"],
    ["the empty string", ""],
  ])("%s is allowed in every field", (_case, text) => {
    for (const field of FIELDS) expect(findForbiddenCharacter(text, field), field).toBeNull();
  });
});

describe("bidirectional controls: refused in titles (shown in lists and terminals), allowed in prompts", () => {
  it.each([
    ["U+202A", "\u202a", "left-to-right embedding control"],
    ["U+202B", "\u202b", "right-to-left embedding control"],
    ["U+202C", "\u202c", "pop directional formatting control"],
    ["U+202D", "\u202d", "left-to-right override control"],
    ["U+202E", "\u202e", "right-to-left override control"],
    ["U+2066", "\u2066", "left-to-right isolate control"],
    ["U+2067", "\u2067", "right-to-left isolate control"],
    ["U+2068", "\u2068", "first strong isolate control"],
    ["U+2069", "\u2069", "pop directional isolate control"],
  ])("%s", (codePoint, char, name) => {
    expect(findForbiddenCharacter(`invoice${char}fdp.exe`, "title")).toEqual({
      codePoint,
      position: 8,
      name,
    });
    expect(findForbiddenCharacter(`invoice${char}fdp.exe`, "prompt")).toBeNull();
    expect(findForbiddenCharacter(`invoice${char}fdp.exe`, "text")).toBeNull();
  });

  it.each([
    ["U+2029 (paragraph separator, just outside the first range)", "\u2029"],
    ["U+202F (narrow no-break space, just after it)", "\u202f"],
    ["U+2065 (unassigned, just before the isolates)", "\u2065"],
    ["U+206A (just after them)", "\u206a"],
    ["U+200F (right-to-left mark: a mark, not an override)", "\u200f"],
  ])("the neighbours are allowed in titles: %s", (_case, char) => {
    expect(findForbiddenCharacter(`a${char}b`, "title")).toBeNull();
  });
});

describe("the refusal's reason", () => {
  it("names the field, the character, where it is and the rule, never the text", () => {
    const found = findForbiddenCharacter("secret-ish words\u0000", "prompt")!;
    const reason = describeForbiddenCharacter("prompt", found);
    expect(reason).toBe(
      "prompt holds a NUL (U+0000) at character 17; prompt may hold no control characters other than tab, line feed and carriage return, and no lone surrogates",
    );
    expect(reason).not.toContain("secret-ish");
  });

  it("a title's reason names the bidirectional ranges", () => {
    const reason = describeForbiddenCharacter("title", findForbiddenCharacter("a\u202eb", "title")!);
    expect(reason).toMatch(/^title holds a right-to-left override control \(U\+202E\) at character 2; /);
    expect(reason).toContain("U+202A to U+202E, U+2066 to U+2069");
  });
});
