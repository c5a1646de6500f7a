// BuildKit's word lexer, written from its documented behaviour and conformance vectors: quotes, the escape
// character, and every `$name` / `${name...}` form. Pure: the environment is passed in.
import { ExpansionError } from "./expansion-error.js";
import { compileShellPattern, trimPatternPrefix, trimPatternSuffix } from "./pattern.js";
import { isDigit, isGoSpace, isLetter, quoteGo } from "./text.js";

export { ExpansionError };

export type EscapeCharacter = "\\" | "`";

export interface LexOptions {
  escape?: EscapeCharacter;
  /** Keep the quote characters in the result (BuildKit's RawQuotes). */
  rawQuotes?: boolean;
  /** Keep escape characters in the result (BuildKit's RawEscapes). */
  rawEscapes?: boolean;
  /** Leave references to unset variables as written (BuildKit's SkipUnsetEnv). */
  skipUnsetEnv?: boolean;
}

export interface WordResult {
  /** The word with quotes removed and variables expanded, not split. */
  value: string;
  /** The same text split on unquoted whitespace (including whitespace from unquoted variables). */
  words: string[];
  matched: Set<string>;
  unmatched: Set<string>;
}

const EOF = -1;
const DOLLAR = 0x24;
const SINGLE = 0x27;
const DOUBLE = 0x22;
const OPEN = 0x7b;
const CLOSE = 0x7d;

class WordBuffer {
  word = "";
  words: string[] = [];
  inWord = false;
  addChar(ch: string): void {
    if (isGoSpace(ch)) {
      if (this.inWord && this.word.length !== 0) {
        this.words.push(this.word);
        this.word = "";
        this.inWord = false;
      }
    } else {
      this.addRaw(ch);
    }
  }
  addRaw(text: string): void {
    this.word += text;
    this.inWord = true;
  }
  addString(text: string): void {
    for (const ch of text) this.addChar(ch);
  }
  finish(): string[] {
    if (this.word.length > 0) this.words.push(this.word);
    return this.words;
  }
}

class WordLexer {
  private pos = 0;
  private rawEscapes: boolean;
  readonly matched = new Set<string>();
  readonly unmatched = new Set<string>();
  private readonly escape: number;

  constructor(
    private readonly src: string,
    private readonly env: ReadonlyMap<string, string>,
    private readonly options: LexOptions,
  ) {
    this.rawEscapes = options.rawEscapes ?? false;
    this.escape = (options.escape ?? "\\").charCodeAt(0);
  }

  private peek(): number {
    return this.pos < this.src.length ? this.src.codePointAt(this.pos)! : EOF;
  }

  private next(): number {
    if (this.pos >= this.src.length) return EOF;
    const cp = this.src.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  run(): { value: string; words: string[] } {
    return this.processStopOn(EOF, this.rawEscapes);
  }

  private processStopOn(stop: number, rawEscapes: boolean): { value: string; words: string[] } {
    let result = "";
    const words = new WordBuffer();
    const saved = this.rawEscapes;
    this.rawEscapes = rawEscapes;
    try {
      const src = this.src;
      while (this.pos < src.length) {
        const ch = this.peek();
        if (stop !== EOF && ch === stop) {
          this.next();
          return { value: result, words: words.finish() };
        }
        if (ch === DOLLAR) {
          const text = this.processDollar();
          result += text;
          words.addString(text);
          continue;
        }
        if (ch === SINGLE || ch === DOUBLE) {
          const text = ch === SINGLE ? this.processSingleQuote() : this.processDoubleQuote();
          result += text;
          words.addRaw(text);
          continue;
        }
        let cp = this.next();
        if (cp === this.escape) {
          if (this.rawEscapes) {
            const raw = String.fromCodePoint(cp);
            words.addRaw(raw);
            result += raw;
          }
          cp = this.next();
          if (cp === EOF) break;
          const text = String.fromCodePoint(cp);
          words.addRaw(text);
          result += text;
          continue;
        }
        const text = String.fromCodePoint(cp);
        words.addChar(text);
        result += text;
      }
      if (stop !== EOF) {
        throw new ExpansionError(
          `unexpected end of statement while looking for matching ${String.fromCodePoint(stop)}`,
        );
      }
      return { value: result, words: words.finish() };
    } finally {
      this.rawEscapes = saved;
    }
  }

  private processSingleQuote(): string {
    const raw = this.options.rawQuotes === true;
    let result = raw ? "'" : "";
    this.next();
    for (;;) {
      const cp = this.next();
      if (cp === EOF)
        throw new ExpansionError("unexpected end of statement while looking for matching single-quote");
      if (cp === SINGLE) return raw ? `${result}'` : result;
      result += String.fromCodePoint(cp);
    }
  }

  private processDoubleQuote(): string {
    const raw = this.options.rawQuotes === true;
    let result = raw ? '"' : "";
    this.next();
    for (;;) {
      const ch = this.peek();
      if (ch === EOF)
        throw new ExpansionError("unexpected end of statement while looking for matching double-quote");
      if (ch === DOUBLE) {
        this.next();
        return raw ? `${result}"` : result;
      }
      if (ch === DOLLAR) {
        result += this.processDollar();
        continue;
      }
      let cp = this.next();
      if (cp === this.escape) {
        if (this.rawEscapes) result += String.fromCodePoint(cp);
        const after = this.peek();
        if (after === EOF) continue;
        if (after === DOUBLE || after === DOLLAR || after === this.escape) cp = this.next();
      }
      result += String.fromCodePoint(cp);
    }
  }

  private lookup(name: string): string | undefined {
    const value = this.env.get(name);
    if (value === undefined) this.unmatched.add(name);
    else this.matched.add(name);
    return value;
  }

  private processDollar(): string {
    this.next();
    if (this.peek() !== OPEN) {
      const name = this.processName();
      if (name === "") return "$";
      const value = this.lookup(name);
      if (value === undefined && this.options.skipUnsetEnv) return `$${name}`;
      return value ?? "";
    }
    this.next();
    const first = this.peek();
    if (first === EOF) throw new ExpansionError("syntax error: missing '}'");
    if (first === OPEN || first === CLOSE || first === 0x3a)
      throw new ExpansionError("syntax error: bad substitution");
    const name = this.processName();
    let ch = this.next();
    if (ch === CLOSE) {
      const value = this.lookup(name);
      if (value === undefined && this.options.skipUnsetEnv) return `\${${name}}`;
      return value ?? "";
    }
    if (ch === 0x2f) return this.processReplace(name);
    if (ch === EOF) throw new ExpansionError("syntax error: missing '}'");
    const colon = ch === 0x3a;
    if (colon) ch = this.next();
    const operator = ch === EOF ? "" : String.fromCodePoint(ch);
    const modifier = colon ? `:${operator}` : operator;
    const allowed = colon ? "+-?" : "+-?#%";
    if (operator === "" || !allowed.includes(operator)) {
      throw new ExpansionError(`unsupported modifier (${modifier}) in substitution`);
    }
    let word: string;
    try {
      word = this.processStopOn(CLOSE, operator === "#" || operator === "%").value;
    } catch (error) {
      if (this.peek() === EOF) throw new ExpansionError("syntax error: missing '}'");
      throw error;
    }
    const value = this.lookup(name);
    if (this.options.skipUnsetEnv && value === undefined) return `\${${name}${modifier}${word}}`;
    return applyModifier(name, modifier, colon, operator, word, value);
  }

  private processReplace(name: string): string {
    const all = this.peek() === 0x2f;
    if (all) this.next();
    let pattern: string;
    let replacement: string;
    try {
      pattern = this.processStopOn(0x2f, true).value;
    } catch (error) {
      if (this.peek() === EOF) throw new ExpansionError("syntax error: missing '/' in ${}");
      throw error;
    }
    try {
      replacement = this.processStopOn(CLOSE, true).value;
    } catch (error) {
      if (this.peek() === EOF) throw new ExpansionError("syntax error: missing '}'");
      throw error;
    }
    const value = this.lookup(name);
    if (this.options.skipUnsetEnv && value === undefined) return `\${${name}/${pattern}/${replacement}}`;
    const re = compileShellPattern(pattern, { greedy: true, anchored: false, global: all });
    return (value ?? "").replace(re, () => replacement);
  }

  private processName(): string {
    let name = "";
    while (this.pos < this.src.length) {
      const cp = this.peek();
      const ch = String.fromCodePoint(cp);
      if (name.length === 0 && isDigit(ch)) {
        while (this.pos < this.src.length && isDigit(String.fromCodePoint(this.peek()))) {
          name += String.fromCodePoint(this.next());
        }
        return name;
      }
      if (name.length === 0 && "@*#?-$!0".includes(ch)) {
        this.next();
        return ch;
      }
      if (!isLetter(ch) && !isDigit(ch) && ch !== "_") break;
      name += String.fromCodePoint(this.next());
    }
    return name;
  }
}

function applyModifier(
  name: string,
  modifier: string,
  colon: boolean,
  operator: string,
  word: string,
  value: string | undefined,
): string {
  const unset = value === undefined || (colon && value === "");
  switch (colon ? `:${operator}` : operator) {
    case "-":
    case ":-":
      return unset ? word : value!;
    case "+":
    case ":+":
      return unset ? "" : word;
    case "?":
    case ":?":
      if (value === undefined) throw new ExpansionError(`${name}: ${word || "is not allowed to be unset"}`);
      if (colon && value === "") throw new ExpansionError(`${name}: ${word || "is not allowed to be empty"}`);
      return value;
    case "#":
    case "%": {
      const greedy = word.startsWith(operator);
      const pattern = greedy ? word.slice(1) : word;
      return operator === "#"
        ? trimPatternPrefix(pattern, value ?? "", greedy)
        : trimPatternSuffix(pattern, value ?? "", greedy);
    }
    default:
      throw new ExpansionError(`unsupported modifier (${modifier}) in substitution`);
  }
}

/** Expands one word the way BuildKit does; throws ExpansionError with BuildKit's message. */
export function processWord(
  input: string,
  env: ReadonlyMap<string, string>,
  options: LexOptions = {},
): WordResult {
  const lexer = new WordLexer(input, env, options);
  try {
    const { value, words } = lexer.run();
    return { value, words, matched: lexer.matched, unmatched: lexer.unmatched };
  } catch (error) {
    if (error instanceof ExpansionError) {
      throw new ExpansionError(`failed to process ${quoteGo(input)}: ${error.message}`);
    }
    throw error;
  }
}

/** Environment lists in `KEY=VALUE` form (later duplicates win), as BuildKit's BuildEnvs builds them. */
export function environmentFromList(list: readonly string[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const entry of list) {
    const at = entry.indexOf("=");
    if (at < 0) env.set(entry, "");
    else env.set(entry.slice(0, at), entry.slice(at + 1));
  }
  return env;
}
