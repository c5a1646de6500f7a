// Builds the commander program for one invocation: every command's name and summary (for help and suggestions),
// and the arguments, flags and action of the invoked command only, whose module is loaded here.
import { Command } from "commander";
import { readVersion } from "../version.js";
import type { CommandContext } from "./context.js";
import { COMMANDS, type CommandEntry, isGroup } from "./registry.js";
import { maskTokens } from "./token-arguments.js";

const HELP_FLAGS = new Set(["-h", "--help"]);

export interface BuiltProgram {
  program: Command;
  /** The arguments to parse: without help flags after an unknown command, so commander reports it. */
  argv: string[];
}

export async function buildProgram(argv: readonly string[], context: CommandContext): Promise<BuiltProgram> {
  const program = createRoot(context);
  let parent = program;
  let level: readonly CommandEntry[] = COMMANDS;
  let index = 0;
  let unknown = false;
  while (level.length > 0) {
    const made = new Map(
      // Every level says "unknown command" for `help`, as the root does (commander adds it per command).
      level.map((entry) => {
        const hidden = !isGroup(entry) && entry.hidden === true;
        const command = parent.command(entry.name, { hidden }).description(entry.summary).helpCommand(false);
        if (parent === program) command.helpGroup(helpGroupOf(entry));
        return [entry.name, command];
      }),
    );
    // Command groups take no flags, so the next word that is not a flag names the subcommand.
    while (index < argv.length && argv[index]!.startsWith("-")) index++;
    const name = argv[index++];
    if (name === undefined) break;
    const entry = level.find((candidate) => candidate.name === name);
    if (!entry) {
      unknown = true;
      break;
    }
    const command = made.get(name)!;
    if (!isGroup(entry)) {
      // A client command names itself in its usage errors: "baton whoami: unknown option '--status'".
      if (entry.shape) command.configureOutput(namedErrors(command, entry.name));
      (await entry.load()).declare(command, context);
      break;
    }
    parent = command;
    level = entry.subcommands;
  }
  // `baton nosuch --help` must fail like `baton nosuch` (exit 1 with a suggestion), not print the main help.
  return { program, argv: unknown ? argv.filter((arg) => !HELP_FLAGS.has(arg)) : [...argv] };
}

function namedErrors(command: Command, name: string) {
  return {
    ...command.configureOutput(),
    outputError: (text: string, write: (text: string) => void) =>
      write(maskTokens(`baton ${name}: ${text.replace(/^error: /, "")}`)),
  };
}

/** `baton --help` lists a person's commands first, then the sandbox and operator ones. */
function helpGroupOf(entry: CommandEntry): string {
  return !isGroup(entry) && entry.shape
    ? 'Tasks (start with: baton "<prompt>"):'
    : "Sandbox and operator commands:";
}

function createRoot({ io }: CommandContext): Command {
  const program = new Command("baton")
    .description("Delegate tasks to coding agents and follow them; the runtime inside their sandboxes")
    .version(readVersion(), "-v, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => {
        if (!io.stdout.destroyed) io.stdout.write(text);
      },
      writeErr: (text) => {
        if (!io.stderr.destroyed) io.stderr.write(text);
      },
      // commander echoes the word it did not know (`unknown command 'btn_…'`): never a token.
      outputError: (text, write) => write(maskTokens(`baton: ${text.replace(/^error: /, "")}`)),
    });
  program.helpCommand(false);
  return program;
}
