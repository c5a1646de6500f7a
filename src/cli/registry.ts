// Every `baton` command as data: names, one-line summaries and where each command's module is. Only the invoked
// command's module is loaded and declared (src/cli/program.ts); the others appear in help as their summaries.
// A new command is one entry here and one module under src/cli/commands/.
import type { Command } from "commander";
import type { CommandContext } from "./context.js";

/** What a command module exports: its arguments, flags, action and printing, declared on the given command. */
export interface CommandModule {
  declare(command: Command, context: CommandContext): void;
}

/**
 * A client command's shape, for reference rule 1 (src/cli/invocation.ts): its positionals and the flags that take
 * a value. Only client commands have one; the sandbox and operator commands are parsed as written.
 */
export interface CommandShape {
  positionals: readonly { name: string; kind: "id" | "text"; optional?: boolean }[];
  valueFlags: readonly string[];
  /** Its flags that take no value (help flags are known to every command). */
  switches: readonly string[];
  /** One line for a mistyped command's error. */
  usage: string;
}

export interface LeafEntry {
  name: string;
  summary: string;
  load(): Promise<CommandModule>;
  shape?: CommandShape;
  /** Left out of `baton --help`: a command that a program starts, not a person (its own --help still works). */
  hidden?: boolean;
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

const WORKSPACE_FLAGS = ["-w", "--workspace"] as const;
const TASK_ID = { name: "task-id", kind: "id" } as const;

/** A person's or a script's commands (reference section 4, "Command-line client"), listed first in help. */
export const CLIENT_COMMANDS: readonly LeafEntry[] = [
  {
    name: "start",
    summary: 'start a task and follow it (also: baton "<prompt>")',
    load: () => import("./commands/start.js"),
    shape: {
      positionals: [{ name: "prompt", kind: "text" }],
      valueFlags: ["-r", "--repo", "-f", "--file", "-t", "--title", ...WORKSPACE_FLAGS, "--timeout"],
      switches: ["--no-wait", "--json"],
      usage: 'baton start [options] "<prompt>"',
    },
  },
  {
    name: "reply",
    summary: "follow up on a task, then follow it",
    load: () => import("./commands/reply.js"),
    shape: {
      positionals: [TASK_ID, { name: "text", kind: "text" }],
      valueFlags: ["-f", "--file", ...WORKSPACE_FLAGS, "--timeout"],
      switches: ["--no-wait", "--json"],
      usage: 'baton reply [options] <task-id> "<text>"',
    },
  },
  {
    name: "show",
    summary: "print a task and its conversation (tasks started from the client, MCP or API)",
    load: () => import("./commands/show.js"),
    shape: {
      positionals: [TASK_ID],
      valueFlags: WORKSPACE_FLAGS,
      switches: ["--json"],
      usage: "baton show [-w <workspace-id>] [--json] <task-id>",
    },
  },
  {
    name: "tasks",
    summary: "list the most recently active tasks",
    load: () => import("./commands/tasks.js"),
    shape: {
      positionals: [],
      valueFlags: [...WORKSPACE_FLAGS, "--status", "-n", "--limit"],
      switches: ["--json"],
      usage: "baton tasks [-w <workspace-id>] [--status <status>] [-n <n>] [--json]",
    },
  },
  {
    name: "stop",
    summary: "stop a task's running turn",
    load: () => import("./commands/stop.js"),
    shape: {
      positionals: [TASK_ID],
      valueFlags: WORKSPACE_FLAGS,
      switches: [],
      usage: "baton stop [-w <workspace-id>] <task-id>",
    },
  },
  {
    name: "whoami",
    summary: "print the signed-in user and their workspaces",
    load: () => import("./commands/whoami.js"),
    shape: { positionals: [], valueFlags: [], switches: ["--json"], usage: "baton whoami [--json]" },
  },
  {
    name: "workspace",
    summary: "list your workspaces and the default, or set the default",
    load: () => import("./commands/workspace.js"),
    shape: {
      positionals: [{ name: "id", kind: "id", optional: true }],
      valueFlags: [],
      switches: [],
      usage: "baton workspace [<workspace-id>]",
    },
  },
  {
    name: "login",
    summary: "sign in (browser, or a personal access token with --token or on stdin)",
    load: () => import("./commands/login.js"),
    shape: {
      positionals: [],
      valueFlags: [...WORKSPACE_FLAGS, "--api-url"],
      switches: ["--no-browser", "--token"],
      usage: "baton login [-w <workspace-id>] [--no-browser] [--token] [--api-url <url>]",
    },
  },
  {
    name: "logout",
    summary: "sign out: revoke the token or end the sign-in, and delete the config file",
    load: () => import("./commands/logout.js"),
    shape: { positionals: [], valueFlags: [], switches: [], usage: "baton logout" },
  },
];

/** The sandbox-side and operator commands, listed after the client's in help. */
export const SANDBOX_COMMANDS: readonly CommandEntry[] = [
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
        summary:
          "run the repository's agent environment as an agent meets it, in a throwaway sandbox or (--serve) a running service's box",
        load: () => import("./commands/env/test.js"),
      },
      {
        name: "rehearse",
        summary: "the agent's four start-up steps in one process, as JSON lines; started by baton env test",
        load: () => import("./commands/env/rehearse.js"),
        hidden: true,
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
    name: "agent-tools",
    summary:
      "Baton's MCP tool server for the coding agent in a box (ask_user, open_pull_request) on stdio; started by the agent, not by you",
    load: () => import("./commands/agent-tools.js"),
    hidden: true,
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
    summary:
      "run the reference orchestrator (public API, dashboard, operations transport, admin API) on SQLite (--db) or PostgreSQL (--database-url)",
    load: () => import("./commands/serve.js"),
  },
  {
    name: "proxy",
    summary: "run the egress proxy; check its policy (check), print or rotate its CA (ca, rotate-ca)",
    load: () => import("./commands/proxy.js"),
  },
  {
    name: "admin",
    summary:
      "provision sandboxes, turns and personal access tokens on a running baton serve (admin token from BATON_ADMIN_TOKEN); move a stopped one's store or remove its boxes",
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
        name: "prune-sandboxes",
        summary:
          "remove the sandbox boxes a stopped baton serve left (a stop keeps them for the next start), with their network",
        load: () => import("./commands/admin/prune-sandboxes.js"),
      },
      {
        name: "migrate-store",
        summary:
          "copy a stopped baton serve's SQLite store into an empty PostgreSQL database, checked by reading both back",
        load: () => import("./commands/admin/migrate-store.js"),
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

export const COMMANDS: readonly CommandEntry[] = [...CLIENT_COMMANDS, ...SANDBOX_COMMANDS];
