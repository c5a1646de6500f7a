// `baton workspace [<workspace-id>]`: list your workspaces with the default marked, or save a new default (it
// must be one of yours: checked with GET /v1/me before the file changes).
import type { Command } from "commander";
import { saveConfig } from "../../client/config.js";
import { UsageError } from "../../errors.js";
import { withSession } from "../client-command.js";
import { renderWorkspaces } from "../client-render.js";
import type { CommandContext } from "../context.js";
import { writeLine, writeLines } from "../io.js";

export function declare(command: Command, context: CommandContext): void {
  command
    .summary("list your workspaces and the default, or set the default")
    .argument("[workspace-id]", "the workspace to make the default")
    .action(
      context.action(async (id: string | undefined) => {
        await withSession(context, async (session) => {
          const me = await session.api.me();
          if (id === undefined) {
            writeLines(context.io.stdout, renderWorkspaces(me.workspaces, session.config.workspace));
            return undefined;
          }
          const chosen = me.workspaces.find((w) => w.id === id);
          if (!chosen) {
            throw new UsageError(
              `${id} is not one of your workspaces (${me.workspaces.map((w) => w.id).join(", ") || "none"}); the default is unchanged`,
            );
          }
          saveConfig(session.location, { ...session.config, workspace: chosen.id });
          writeLine(context.io.stdout, `Default workspace: ${chosen.id} (${chosen.name})`);
        });
        return undefined;
      }),
    );
}
