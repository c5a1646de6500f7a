// `baton whoami [--json]`: the signed-in user and their workspaces, the default marked.
import type { Command } from "commander";
import { JSON_FLAG, JSON_HELP, withSession } from "../client-command.js";
import { renderWorkspaces } from "../client-render.js";
import type { CommandContext } from "../context.js";
import { writeJson, writeLines } from "../io.js";

export function declare(command: Command, context: CommandContext): void {
  command
    .summary("print the signed-in user and their workspaces")
    .option(JSON_FLAG, JSON_HELP)
    .action(
      context.action(async (options: { json?: boolean }) => {
        const { me, config, apiUrl } = await withSession(context, async (session) => ({
          me: await session.api.me(),
          config: session.config,
          apiUrl: session.apiUrl,
        }));
        if (options.json) {
          writeJson(context.io.stdout, {
            user: me.user,
            workspaces: me.workspaces,
            defaultWorkspace: config.workspace,
            apiUrl,
            tokenKind: config.kind,
          });
          return undefined;
        }
        const login = me.user.codehostLogin ? ` (${me.user.codehostLogin})` : "";
        writeLines(context.io.stdout, [
          `${me.user.name}${login}, ${me.user.id}, on ${apiUrl}`,
          ...renderWorkspaces(me.workspaces, config.workspace),
        ]);
        return undefined;
      }),
    );
}
