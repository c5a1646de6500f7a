// Reference rule 1, classified before anything is parsed: `baton "<prompt>"` is `baton start "<prompt>"`; a prompt
// that starts with a command word still starts a task unless it has exactly that command's shape; a command word
// followed by a single word is a mistyped command; `--` ends flags. Pure: argv and the command table in, one
// outcome out, never a throw (classify first, act second).
import { type CommandEntry, type CommandShape, isGroup } from "./registry.js";
import { holdsToken } from "./token-arguments.js";

export type Invocation =
  /** Parse argv as written: a command, help, or an unknown word that commander reports with a suggestion. */
  | { kind: "command"; argv: string[] }
  /** Start a task: argv rewritten as `start <flags> -- <prompt>`. */
  | { kind: "start"; argv: string[]; prompt: string }
  /** A command word followed by a word that command does not take. */
  | { kind: "mistyped"; command: string; words: string[]; usage: string }
  /**
   * An access token given as an argument (to `login`, or to anything but `start` and the sandbox and operator
   * commands): refused without echoing it, and never turned into a prompt suggestion or a prompt.
   */
  | { kind: "token-argument"; command: "login" | "other" };

const ROOT_FLAGS = new Set(["-h", "--help", "-v", "--version"]);
const START = "start";

interface Scanned {
  flags: string[];
  positionals: string[];
  sawDashDash: boolean;
}

/** Splits arguments into flags (with the values they take) and positionals; after `--` all are positionals. */
export function scanArguments(args: readonly string[], valueFlags: readonly string[]): Scanned {
  const takesValue = new Set(valueFlags);
  const flags: string[] = [];
  const positionals: string[] = [];
  let sawDashDash = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (sawDashDash) positionals.push(arg);
    else if (arg === "--") sawDashDash = true;
    else if (arg.startsWith("-") && arg.length > 1) {
      flags.push(arg);
      // `--title=x` and `-n5` carry their value; `--title x` and `-n 5` take the next argument.
      const inline = arg.includes("=") || (!arg.startsWith("--") && arg.length > 2);
      if (!inline && takesValue.has(arg) && i + 1 < args.length) flags.push(args[++i]!);
    } else positionals.push(arg);
  }
  return { flags, positionals, sawDashDash };
}

export function classifyInvocation(argv: readonly string[], commands: readonly CommandEntry[]): Invocation {
  const asWritten: Invocation = { kind: "command", argv: [...argv] };
  const first = argv[0];
  if (first === undefined || ROOT_FLAGS.has(first)) return asWritten;
  const start = findShape(commands, START);
  const startFlags = start?.valueFlags ?? [];
  const toStart = (args: readonly string[]): Invocation => {
    const scanned = scanArguments(args, startFlags);
    if (scanned.positionals.length === 0) return asWritten;
    const prompt = scanned.positionals.join(" ");
    return { kind: "start", argv: [START, ...scanned.flags, "--", prompt], prompt };
  };

  const entry = commands.find((candidate) => candidate.name === first);
  if (first === LOGIN && givesLoginAValue(argv.slice(1), entry))
    return { kind: "token-argument", command: "login" };
  const clientWords =
    entry === undefined || (!isGroup(entry) && entry.shape !== undefined && first !== START);
  if (clientWords && holdsToken(argv)) return { kind: "token-argument", command: "other" };

  if (first.startsWith("-")) return toStart(argv);
  if (entry === undefined) {
    // One bare word is far likelier a misspelt command than a prompt: commander says so, with a suggestion.
    const scanned = scanArguments(argv, startFlags);
    const oneWord = scanned.positionals.length === 1 && !scanned.sawDashDash && !/\s/.test(first);
    return oneWord ? asWritten : toStart(argv);
  }
  // `start` always starts a task; the sandbox and operator commands keep their own parsing.
  if (first === START || isGroup(entry) || entry.shape === undefined) return asWritten;

  const shape = entry.shape;
  const { flags, positionals } = scanArguments(argv.slice(1), shape.valueFlags);
  // A flag the command does not take: commander names it and the command.
  if (flags.some((flag) => isUnknownFlag(flag, shape))) return asWritten;
  // Too few is still the command (commander names the missing argument); too many or a spaced id is a prompt.
  if (positionals.length <= shape.positionals.length && idsHaveNoSpaces(positionals, shape)) return asWritten;
  if (shape.positionals.length === 0 && positionals.length === 1 && !/\s/.test(positionals[0]!)) {
    return { kind: "mistyped", command: first, words: positionals, usage: shape.usage };
  }
  return toStart(argv);
}

const HELP_FLAGS = new Set(["-h", "--help"]);
const LOGIN = "login";

/**
 * `baton login` takes no words, and `--token` no value: the token is typed at its prompt or piped in. One word
 * written there (`login --token btn_…`, `login btn_…`, `--token=btn_…`) is most likely the token itself, whatever
 * its shape, so it is not echoed back as a mistyped command.
 */
function givesLoginAValue(args: readonly string[], entry: CommandEntry | undefined): boolean {
  if (entry === undefined || isGroup(entry) || entry.shape === undefined) return false;
  const { flags, positionals } = scanArguments(args, entry.shape.valueFlags);
  // Several words are still a prompt ("login page is broken"), unless one of them looks like a token.
  return positionals.length === 1 || flags.some((flag) => flag.startsWith("--token=")) || holdsToken(args);
}

function isUnknownFlag(token: string, shape: CommandShape): boolean {
  if (!token.startsWith("-")) return false; // a flag's value
  const name = token.startsWith("--") ? token.split("=")[0]! : token.slice(0, 2);
  return !HELP_FLAGS.has(name) && !shape.valueFlags.includes(name) && !shape.switches.includes(name);
}

/** A task or workspace id never holds whitespace: `baton show "me the logs"` is a prompt. */
function idsHaveNoSpaces(positionals: readonly string[], shape: CommandShape): boolean {
  return positionals.every((value, i) => shape.positionals[i]?.kind !== "id" || !/\s/.test(value));
}

function findShape(commands: readonly CommandEntry[], name: string): CommandShape | undefined {
  const entry = commands.find((candidate) => candidate.name === name);
  return entry && !isGroup(entry) ? entry.shape : undefined;
}
