// BuildKit's word lexer, written from its documented behaviour and conformance vectors: quotes, the escape
// character, and every `$name` / `${name...}` form. Pure: the environment is passed in.
import { ExpansionError } from "./expansion-error.js";
import {
  chargeExpansion,
  createExpansionBudget,
  type ExpansionBudget,
  MAX_NESTING,
  MAX_VALUE_LENGTH,
  valueTooLongError,
} from "./limits.js";
import { trimPatternPrefix, trimPatternSuffix } from "./pattern.js";
import { replacePattern } from "./replace-pattern.js";
import { GO_SPACE, isDigit, isGoSpace, isLetter, quoteGo } from "./text.js";

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
  /** Expansion work left for the whole Dockerfile; a fresh budget per word when absent. */
  budget?: ExpansionBudget;
  /** The longest value a word (or any part of it) may expand to; MAX_VALUE_LENGTH when absent. */
  maxLength?: number;
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
  /** addChar for each character, a run of non-blanks at a time. */
  addString(text: string): void {
    GO_SPACE.lastIndex = 0;
    let start = 0;
    for (let match = GO_SPACE.exec(text); match !== null; match = GO_SPACE.exec(text)) {
      if (match.index > start) this.addRaw(text.slice(start, match.index));
      this.addChar(" ");
      start = match.index + 1;
    }
    if (start < text.length) this.addRaw(start === 0 ? text : text.slice(start));
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
  private readonly budget: ExpansionBudget;
  private readonly maxLength: number;
  private depth = 0;

  constructor(
    private readonly src: string,
    private readonly env: ReadonlyMap<string, string>,
    private readonly options: LexOptions,
  ) {
    this.rawEscapes = options.rawEscapes ?? false;
    this.escape = (options.escape ?? "\\").charCodeAt(0);
    this.budget = options.budget ?? createExpansionBudget();
    this.maxLength = options.maxLength ?? MAX_VALUE_LENGTH;
  }

  /** Counts an expansion's text against the budget and the value bound before it joins `sofar`. */
  private admit(sofar: string, text: string): void {
    chargeExpansion(this.budget, text.length);
    if (sofar.length + text.length > this.maxLength) throw valueTooLongError();
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
          this.admit(result, text);
          result += text;
          words.addString(text);
          continue;
        }
        const plain = this.takePlainRun(stop);
        if (plain.length > 0) {
          result += plain;
          words.addString(plain);
          continue;
        }
        if (ch === SINGLE || ch === DOUBLE) {
          const text = ch === SINGLE ? this.processSingleQuote() : this.processDoubleQuote();
          if (result.length + text.length > this.maxLength) throw valueTooLongError();
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

  /** The run of characters from here that need no handling (no `$`, quote, escape or `stop`), consumed. */
  private takePlainRun(stop: number, inDoubleQuotes = false): string {
    const src = this.src;
    const start = this.pos;
    let at = start;
    for (; at < src.length; at++) {
      const code = src.charCodeAt(at);
      if (code === DOLLAR || code === DOUBLE || code === this.escape) break;
      if (!inDoubleQuotes && (code === SINGLE || code === stop)) break;
    }
    this.pos = at;
    return at === start ? "" : src.slice(start, at);
  }

  private processSingleQuote(): string {
    const raw = this.options.rawQuotes === true;
    this.next();
    const close = this.src.indexOf("'", this.pos);
    if (close < 0) {
      this.pos = this.src.length;
      throw new ExpansionError("unexpected end of statement while looking for matching single-quote");
    }
    const text = this.src.slice(this.pos, close);
    this.pos = close + 1;
    return raw ? `'${text}'` : text;
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
        const text = this.processDollar();
        this.admit(result, text);
        result += text;
        continue;
      }
      const plain = this.takePlainRun(EOF, true);
      if (plain.length > 0) {
        result += plain;
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
    if (this.depth >= MAX_NESTING) {
      throw new ExpansionError(`\${…} expansions nested more than ${MAX_NESTING} deep`);
    }
    this.depth++;
    try {
      return this.processDollarAt();
    } finally {
      this.depth--;
    }
  }

  private processDollarAt(): string {
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
    return applyModifier(name, modifier, colon, operator, word, value, this.budget);
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
    return replacePattern(pattern, value ?? "", replacement, {
      all,
      budget: this.budget,
      maxLength: this.maxLength,
    });
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
  budget: ExpansionBudget,
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
        ? trimPatternPrefix(pattern, value ?? "", greedy, budget)
        : trimPatternSuffix(pattern, value ?? "", greedy, budget);
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
      throw new ExpansionError(`failed to process ${quoteWord(input)}: ${error.message}`);
    }
    throw error;
  }
}

const QUOTED_WORD_LIMIT = 100;

/** BuildKit quotes the whole word in its errors; a hostile word can be 64 KiB, so a long one is cut. */
function quoteWord(input: string): string {
  if (input.length <= QUOTED_WORD_LIMIT) return quoteGo(input);
  const head = Array.from(input.slice(0, QUOTED_WORD_LIMIT)).slice(0, -1).join("");
  return `${quoteGo(head)}… (${input.length} characters)`;
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
