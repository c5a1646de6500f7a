// Terminal escape sequences and control characters are removed before matching (newline and tab stay), so a
// secret broken up by colour codes is still found and output cannot rewrite the reader's terminal.

const CONTROL =
  /\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~]?)|\x9b[0-?]*[ -/]*[@-~]?|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]/g;
const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

export const ANSI_KIND = "ansi_escape";
export const CONTROL_KIND = "control_character";

export interface StrippedText {
  text: string;
  ansi: number;
  control: number;
}

export function stripControlCharacters(text: string): StrippedText {
  if (!ANY_CONTROL.test(text)) return { text, ansi: 0, control: 0 };
  let ansi = 0;
  let control = 0;
  const stripped = text.replace(CONTROL, (sequence) => {
    if (sequence.length > 1 || sequence === "\x1b" || sequence === "\x9b") ansi++;
    else control++;
    return "";
  });
  return { text: stripped, ansi, control };
}
