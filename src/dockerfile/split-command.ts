// Splits one logical line into keyword, leading `--flag[=value]` words and the rest, as BuildKit does.
import { isGoSpace, splitWhitespace, trimSpace } from "./text.js";

export interface SplitLine {
  keyword: string;
  flags: string[];
  rest: string;
}

export function splitCommand(line: string): SplitLine {
  const parts = splitWhitespace(trimSpace(line), 2);
  const keyword = parts[0]!.toLowerCase();
  if (parts.length < 2) return { keyword, flags: [], rest: "" };
  const { rest, flags } = extractFlags(parts[1]!);
  return { keyword, flags, rest: trimSpace(rest) };
}

function extractFlags(line: string): { rest: string; flags: string[] } {
  const flags: string[] = [];
  let word = "";
  let phase: "spaces" | "word" | "quote" = "spaces";
  let quote = "";
  let blankOk = false;
  for (let pos = 0; pos <= line.length; pos++) {
    const ch = pos < line.length ? line[pos]! : "";
    if (phase === "spaces") {
      if (pos === line.length) break;
      if (isGoSpace(ch)) continue;
      if (ch !== "-" || pos + 1 === line.length || line[pos + 1] !== "-") {
        return { rest: line.slice(pos), flags };
      }
      phase = "word";
    }
    if (pos === line.length) {
      if (word !== "--" && (blankOk || word.length > 0)) flags.push(word);
      break;
    }
    if (phase === "word") {
      if (isGoSpace(ch)) {
        phase = "spaces";
        if (word === "--") return { rest: line.slice(pos), flags };
        if (blankOk || word.length > 0) flags.push(word);
        word = "";
        blankOk = false;
        continue;
      }
      if (ch === "'" || ch === '"') {
        quote = ch;
        blankOk = true;
        phase = "quote";
        continue;
      }
      if (ch === "\\") {
        if (pos + 1 === line.length) continue;
        pos++;
        word += line[pos]!;
        continue;
      }
      word += ch;
      continue;
    }
    if (ch === quote) {
      phase = "word";
      continue;
    }
    if (ch === "\\") {
      if (pos + 1 === line.length) {
        phase = "word";
        continue;
      }
      pos++;
      word += line[pos]!;
      continue;
    }
    word += ch;
  }
  return { rest: "", flags };
}
