// Anchors: short character-class sequences that every match of a detector contains. The scanner samples the
// input every SAMPLE_STEP characters, so each anchor must be at least SAMPLE_STEP + 3 characters long.

export const SAMPLE_STEP = 4;
export const GRAM = 4;

export interface Anchor {
  /** One string of allowed characters per position. */
  classes: string[];
  /** Where in `classes` the detector's match starts (classes before it are left context). */
  matchOffset: number;
}

const range = (from: string, to: string) => {
  let out = "";
  for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c++) out += String.fromCharCode(c);
  return out;
};
const UPPER = range("A", "Z");
const LOWER = range("a", "z");
const DIGIT = range("0", "9");

/** Named classes usable as `{X}` in anchor specs. */
export const CLASSES: Record<string, string> = {
  // What may precede a token: whitespace, quotes, punctuation, start of text (the scanner pads with "\n").
  B: " \t\n\r\"'`=:,;()[]{}<>|\\/@!*&#$%~+^",
  W: UPPER + LOWER + DIGIT,
  T: `${UPPER}${LOWER}${DIGIT}_-`,
  U: UPPER + DIGIT,
  S: `${LOWER}${UPPER}${DIGIT}+.-`,
  // URL userinfo characters (RFC 3986 unreserved, sub-delims and percent-escapes).
  I: `${UPPER}${LOWER}${DIGIT}-._~%!$&'()*+,;=`,
  // Any ASCII character, including the newline the scanner pads the text with.
  A: `\t\n\r${range(" ", "~")}`,
};

/**
 * Parses an anchor spec: literal characters, `[abc]` sets, `{X}` named classes and one `^` marking where the
 * match starts (default: the first position).
 */
export function parseAnchor(spec: string): Anchor {
  const classes: string[] = [];
  let matchOffset = 0;
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i] as string;
    if (c === "^") {
      matchOffset = classes.length;
    } else if (c === "[") {
      const end = spec.indexOf("]", i + 2);
      classes.push(spec.slice(i + 1, end));
      i = end;
    } else if (c === "{") {
      const end = spec.indexOf("}", i);
      const named = CLASSES[spec.slice(i + 1, end)];
      if (named === undefined) throw new Error(`unknown anchor class in ${spec}`);
      classes.push(named);
      i = end;
    } else {
      classes.push(c);
    }
  }
  return { classes, matchOffset };
}

/** Upper, lower and capitalised variants of a keyword, as literal anchor specs. */
export function caseVariants(word: string): string[] {
  const cap = (word[0] as string).toUpperCase() + word.slice(1);
  return [...new Set([word.toLowerCase(), word.toUpperCase(), cap])];
}

/** The 4-character window start (0 .. length - SAMPLE_STEP - 3) whose enumeration is smallest. */
export function chooseWindow(anchor: Anchor): number {
  const { classes } = anchor;
  if (classes.length < SAMPLE_STEP + GRAM - 1) {
    throw new Error(`anchor too short for sampling: ${classes.join("|")}`);
  }
  let best = 0;
  let bestCost = Number.POSITIVE_INFINITY;
  for (let start = 0; start + SAMPLE_STEP + GRAM - 1 <= classes.length; start++) {
    let cost = 0;
    for (let o = start; o < start + SAMPLE_STEP; o++) {
      let product = 1;
      for (let k = 0; k < GRAM; k++) product *= (classes[o + k] as string).length;
      cost += product;
    }
    if (cost < bestCost) {
      bestCost = cost;
      best = start;
    }
  }
  return best;
}
