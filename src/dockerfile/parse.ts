// Parses Dockerfile text into instructions with BuildKit's exact line rules: parser directives, the escape
// character as line continuation, comments and blank lines inside continuations, heredocs. Pure.
import { InputError } from "../errors.js";
import { type EscapeCharacter, processWord } from "./lexer.js";
import { MAX_INSTRUCTIONS } from "./limits.js";
import {
  type ArgumentNode,
  ParseLineError,
  parseHealthcheck,
  parseMaybeJson,
  parseMaybeJsonToList,
  parseNameOrNameValue,
  parseNameValue,
  parseString,
  parseWhitespaceList,
} from "./line-parsers.js";
import { splitCommand } from "./split-command.js";
import { trimLeftSpace } from "./text.js";

export interface Heredoc {
  name: string;
  fileDescriptor: number;
  /** False when any part of the delimiter was quoted: the body is taken literally. */
  expand: boolean;
  /** `<<-`: leading tabs are stripped from the body and the delimiter line. */
  chomp: boolean;
  content: string;
}

export interface Instruction {
  /** Lower-case keyword, e.g. `run`. */
  keyword: string;
  flags: string[];
  /** The text after the keyword and flags, continuation lines joined. */
  rest: string;
  args: ArgumentNode;
  /** ONBUILD's wrapped instruction. */
  sub?: Omit<Instruction, "startLine" | "endLine">;
  heredocs: Heredoc[];
  startLine: number;
  endLine: number;
}

export interface Directive {
  name: string;
  value: string;
  line: number;
}

export interface ParsedDockerfile {
  escape: EscapeCharacter;
  directives: Directive[];
  instructions: Instruction[];
}

/** bufio.Scanner's default limit: BuildKit refuses longer lines. */
const MAX_LINE_BYTES = 64 * 1024;
const DIRECTIVE_NAME = /^([a-zA-Z][a-zA-Z0-9]*)[\t\n\f\r ]*=/;
const KNOWN_DIRECTIVES = new Set(["syntax", "escape", "check"]);
const HEREDOC_WORD = /^(\d*)<<(-?)([^<]*)$/;
const HEREDOC_KEYWORDS = new Set(["run", "copy", "add"]);

export function lineError(line: number, message: string, cause?: unknown): InputError {
  return new InputError(`Dockerfile line ${line}: ${message}`, { details: { line }, cause });
}

/** Physical lines with their line endings, as BuildKit's scanner yields them. */
function splitPhysicalLines(text: string): string[] {
  const lines = text.split("\n");
  const last = lines.pop()!;
  const withEndings = lines.map((line) => `${line}\n`);
  if (last !== "") withEndings.push(last);
  return withEndings;
}

function trimNewline(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === "\r" || line[end - 1] === "\n")) end--;
  return line.slice(0, end);
}

function isDirectiveSpace(ch: string | undefined): boolean {
  return ch === " " || ch === "\t" || ch === "\n" || ch === "\f" || ch === "\r";
}

/**
 * BuildKit's `^#\s*(name)\s*=\s*(.+?)\s*$` on the text after `#`, without the regular expression's
 * quadratic backtracking on a long run of blanks: the value is the text after `=` with blanks trimmed at both
 * ends, or its last character when it is all blanks.
 */
export function matchDirective(text: string): { name: string; value: string } | null {
  const head = DIRECTIVE_NAME.exec(text);
  if (!head) return null;
  const rest = text.slice(head[0].length);
  if (rest.length === 0) return null;
  let start = 0;
  let end = rest.length;
  while (end > 0 && isDirectiveSpace(rest[end - 1])) end--;
  if (end === 0) return { name: head[1]!, value: rest[rest.length - 1]! };
  while (isDirectiveSpace(rest[start])) start++;
  return { name: head[1]!, value: rest.slice(start, end) };
}

function isComment(line: string): boolean {
  return trimLeftSpace(line).startsWith("#");
}

/** Drops a trailing escape character (optionally followed by blanks) unless it is itself escaped. */
function trimContinuation(line: string, escapeChar: string): { text: string; continues: boolean } {
  let end = line.length;
  while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t")) end--;
  if (end === 0 || line[end - 1] !== escapeChar) return { text: line, continues: false };
  if (end >= 2 && line[end - 2] === escapeChar) return { text: line, continues: false };
  return { text: line.slice(0, end - 1), continues: true };
}

function buildArguments(keyword: string, rest: string, escapeChar: string): ArgumentNode {
  switch (keyword) {
    case "add":
    case "copy":
    case "volume":
      return parseMaybeJsonToList(rest);
    case "arg":
      return parseNameOrNameValue(rest, escapeChar);
    case "cmd":
    case "entrypoint":
    case "run":
    case "shell":
      return parseMaybeJson(rest);
    case "env":
      return parseNameValue(rest, "ENV", escapeChar);
    case "label":
      return parseNameValue(rest, "LABEL", escapeChar);
    case "expose":
    case "from":
      return parseWhitespaceList(rest);
    case "healthcheck":
      return parseHealthcheck(rest);
    case "maintainer":
    case "stopsignal":
    case "user":
    case "workdir":
      return parseString(rest);
    default:
      return { values: [], json: false };
  }
}

function buildInstruction(line: string, escapeChar: string): Omit<Instruction, "startLine" | "endLine"> {
  const { keyword, flags, rest } = splitCommand(line);
  if (keyword === "onbuild") {
    // BuildKit refuses the chain when it reads the instructions; refusing it here also keeps the recursion
    // from a hostile `ONBUILD ONBUILD ONBUILD ...` line shallow.
    if (splitCommand(rest).keyword === "onbuild") {
      throw new ParseLineError("Chaining ONBUILD via `ONBUILD ONBUILD` isn't allowed");
    }
    const sub = rest === "" ? undefined : buildInstruction(rest, escapeChar);
    return { keyword, flags, rest, args: { values: [], json: false }, heredocs: [], ...(sub ? { sub } : {}) };
  }
  return { keyword, flags, rest, args: buildArguments(keyword, rest, escapeChar), heredocs: [] };
}

function canContainHeredoc(instruction: Omit<Instruction, "startLine" | "endLine">): boolean {
  const target = instruction.keyword === "onbuild" && instruction.sub ? instruction.sub : instruction;
  return HEREDOC_KEYWORDS.has(target.keyword) && !target.args.json;
}

function quoteCount(text: string): number {
  let count = 0;
  for (const ch of text) if (ch === "'" || ch === '"') count++;
  return count;
}

/** The heredoc markers on an instruction line, each with its delimiter and whether its body expands. */
export function findHeredocs(line: string): Omit<Heredoc, "content">[] {
  let words: string[];
  try {
    words = processWord(line, new Map(), { rawQuotes: true, rawEscapes: true, skipUnsetEnv: true }).words;
  } catch {
    words = [];
  }
  const found: Omit<Heredoc, "content">[] = [];
  for (const word of words) {
    const match = HEREDOC_WORD.exec(word);
    if (!match || match[3] === "") continue;
    const rest = match[3]!;
    const plain = processWord(rest, new Map(), { skipUnsetEnv: true }).words;
    if (plain.length !== 1) continue;
    const raw = processWord(rest, new Map(), { skipUnsetEnv: true, rawQuotes: true }).words;
    found.push({
      name: plain[0]!,
      fileDescriptor: match[1] === "" ? 0 : Number.parseInt(match[1]!, 10),
      expand: quoteCount(plain[0]!) === quoteCount(raw[0] ?? ""),
      chomp: match[2] === "-",
    });
  }
  return found;
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const lines = splitPhysicalLines(text.startsWith("\ufeff") ? text.slice(1) : text);
  let escapeChar: EscapeCharacter = "\\";
  const directives: Directive[] = [];
  let lookingForDirectives = true;
  const instructions: Instruction[] = [];
  let index = 0;

  const readLine = (): string => {
    const raw = lines[index++]!;
    if (raw.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(raw) + 1 > MAX_LINE_BYTES) {
      throw lineError(index, `the line is longer than ${MAX_LINE_BYTES - 1} bytes; is this a Dockerfile?`);
    }
    // No process argument, environment variable or path can carry a NUL, so nothing after this could use it.
    if (raw.includes("\0")) throw lineError(index, "the line holds a NUL byte; a Dockerfile is text");
    return raw;
  };
  const checkDirective = (token: string, lineNumber: number): void => {
    if (!lookingForDirectives) return;
    const match = token.startsWith("#") ? matchDirective(trimLeftSpace(token.slice(1))) : null;
    const name = match?.name.toLowerCase();
    if (!match || !name || !KNOWN_DIRECTIVES.has(name)) {
      lookingForDirectives = false;
      return;
    }
    if (directives.some((d) => d.name === name)) {
      throw lineError(lineNumber, `only one ${name} parser directive can be used`);
    }
    const value = match.value;
    if (name === "escape") {
      if (value !== "\\" && value !== "`") {
        const shown = value.length > 20 ? `${value.slice(0, 20)}…` : value;
        throw lineError(lineNumber, `invalid escape token '${shown}' does not match \` or \\`);
      }
      escapeChar = value;
    }
    directives.push({ name, value, line: lineNumber });
  };

  while (index < lines.length) {
    const first = trimLeftSpace(trimNewline(readLine()));
    const startLine = index;
    checkDirective(first, startLine);
    if (isComment(first)) continue;
    let { text: buffer, continues } = trimContinuation(first, escapeChar);
    if (!continues && buffer.length === 0) continue;
    while (continues && index < lines.length) {
      const raw = readLine();
      const line = trimNewline(raw);
      checkDirective(line, index);
      if (isComment(raw)) continue;
      if (trimLeftSpace(line).length === 0) continue;
      const trimmed = trimContinuation(line, escapeChar);
      buffer += trimmed.text;
      continues = trimmed.continues;
    }
    let instruction: Omit<Instruction, "startLine" | "endLine">;
    try {
      instruction = buildInstruction(buffer, escapeChar);
    } catch (error) {
      if (error instanceof ParseLineError) throw lineError(startLine, error.message, error);
      throw error;
    }
    if (canContainHeredoc(instruction) && buffer.includes("<<")) {
      for (const marker of findHeredocsOrFail(buffer, startLine)) {
        let content = "";
        let terminated = false;
        while (index < lines.length) {
          const raw = readLine();
          const candidate = marker.chomp ? raw.replace(/^\t+/, "") : raw;
          if (trimNewline(candidate) === marker.name) {
            terminated = true;
            break;
          }
          content += raw;
        }
        if (!terminated) {
          throw lineError(startLine, `unterminated heredoc: no line "${marker.name}" ends the heredoc`);
        }
        instruction.heredocs.push({ ...marker, content });
      }
    }
    if (instruction.keyword === "") throw lineError(startLine, "an instruction is missing its keyword");
    if (instructions.length === MAX_INSTRUCTIONS) {
      throw lineError(
        startLine,
        `more than ${MAX_INSTRUCTIONS} instructions; a Dockerfile this long is refused`,
      );
    }
    instructions.push({ ...instruction, startLine, endLine: index });
  }
  if (instructions.length === 0) throw lineError(Math.max(index, 1), "file with no instructions");
  return { escape: escapeChar, directives, instructions };
}

function findHeredocsOrFail(line: string, lineNumber: number): Omit<Heredoc, "content">[] {
  try {
    return findHeredocs(line);
  } catch (error) {
    throw lineError(lineNumber, `bad heredoc delimiter: ${(error as Error).message}`, error);
  }
}
