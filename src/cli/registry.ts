// Every `baton` command as data: names, one-line summaries and where each command's module is. Only the invoked
// command's module is loaded and declared (src/cli/program.ts); the others appear in help as their summaries.
// A new command is one entry here and one module under src/cli/commands/.
import type { Command } from "commander";
import type { CommandContext } from "./context.js";

/** What a command module exports: its arguments, flags, action and printing, declared on the given command. */
export interface CommandModule {
  declare(command: Command, context: CommandContext): void;
}

export interface LeafEntry {
  name: string;
  summary: string;
  load(): Promise<CommandModule>;
}

export interface GroupEntry {
  name: string;
  summary: string;
  subcommands: readonly CommandEntry[];
}

export type CommandEntry = LeafEntry | GroupEntry;

export function isGroup(entry: CommandEntry): entry is GroupEntry {
  return "subcommands" in entry;
}

export const COMMANDS: readonly CommandEntry[] = [
  // Until the client branch's registry (client commands and rule 1) is merged: start and reply only.
  {
    name: "start",
    summary: 'start a task and follow it (also: baton "<prompt>")',
    load: () => import("./commands/start.js"),
  },
  {
    name: "reply",
    summary: "follow up on a task, then follow it",
    load: () => import("./commands/reply.js"),
  },
  {
    name: "env",
    summary: "activate repositories and manage the generated environment files",
    subcommands: [
      {
        name: "activate",
        summary: "activate a repository's environment in this sandbox and print the startup steps",
        load: () => import("./commands/env/activate.js"),
      },
      {
        name: "apply",
        summary: "write ~/.baton/environment.sh from an overlay document and print the name mapping",
        load: () => import("./commands/env/apply.js"),
      },
      {
        name: "show",
        summary: "print the environment file's overlay revision and variable names (never values)",
        load: () => import("./commands/env/show.js"),
      },
      {
        name: "request-capability",
        summary: "record missing access for a repository, or report an outcome on the matching request",
        load: () => import("./commands/env/request-capability.js"),
      },
      {
        name: "test",
        summary: "run the repository's agent environment as an agent meets it, in a throwaway sandbox",
        load: () => import("./commands/env/test.js"),
      },
    ],
  },
  {
    name: "op",
    summary: "show environment operations and capability requests",
    subcommands: [
      {
        name: "get",
        summary: "show an operation (exit 6 when it failed) or a capability request",
        load: () => import("./commands/op/get.js"),
      },
    ],
  },
  {
    name: "dockerfile",
    summary: "plan or apply a repository's Dockerfile RUN/ENV inside this sandbox, as BuildKit would",
    subcommands: [
      {
        name: "plan",
        summary: "print the steps without running anything",
        load: () => import("./commands/dockerfile/plan.js"),
      },
      {
        name: "apply",
        summary: "run the RUN steps in order, persist ENV, record every step",
        load: () => import("./commands/dockerfile/apply.js"),
      },
    ],
  },
  {
    name: "disclose",
    summary:
      "print the pull-request disclosure: delivered version, Dockerfile steps, startup evidence, checks",
    load: () => import("./commands/disclose.js"),
  },
  {
    name: "runner",
    summary: "the startup runner bundle",
    subcommands: [
      {
        name: "path",
        summary: "print the absolute path of the packaged startup runner (dist/runner/baton-runner.cjs)",
        load: () => import("./commands/runner/path.js"),
      },
    ],
  },
  {
    name: "serve",
    summary: "run the reference orchestrator (operations transport and admin API) on an SQLite store",
    load: () => import("./commands/serve.js"),
  },
  {
    name: "proxy",
    summary: "run the egress proxy, check its policy, print or rotate its CA (see baton proxy --help)",
    load: () => import("./commands/proxy.js"),
  },
  {
    name: "admin",
    summary:
      "provision sandboxes, turns and personal access tokens on a running baton serve (admin token from BATON_ADMIN_TOKEN)",
    subcommands: [
      {
        name: "sandbox",
        summary:
          "create a sandbox lease and turn for an engagement and print the variables the sandbox needs",
        load: () => import("./commands/admin/sandbox.js"),
      },
      {
        name: "turn",
        summary: "issue a follow-up turn token for an engagement",
        load: () => import("./commands/admin/turn.js"),
      },
      {
        name: "task",
        summary: "tasks of the public API",
        subcommands: [
          {
            name: "answer",
            summary:
              "manual agent mode (baton serve --agent manual): end a task's waiting turn with --reply, --clarify or --fail",
            load: () => import("./commands/admin/task-answer.js"),
          },
        ],
      },
      {
        name: "token",
        summary: "personal access tokens for the public API",
        subcommands: [
          {
            name: "create",
            summary:
              "create a personal access token for a workspace member; printed once, only its last four are kept",
            load: () => import("./commands/admin/token-create.js"),
          },
        ],
      },
    ],
  },
];
