// What applying a webhook event needs: the task operations' context, both ports (refusal comments), the
// settings that say which issues are the agent's, and the log for audit lines.
import type { AuditLog } from "../../../audit/events.js";
import type { Codehost } from "../../adapters/codehost/port.js";
import type { IntegrationSettings } from "../../adapters/integrations/settings.js";
import type { Tracker } from "../../adapters/tracker/port.js";
import type { TaskContext } from "../tasks/context.js";

export interface IssueEventDeps {
  ctx: TaskContext;
  codehost: Codehost;
  tracker: Tracker;
  settings: IntegrationSettings;
  logger: AuditLog;
  /**
   * The delivery being applied (`<source>-delivery:<id>`): the first message of a task it starts carries it, so a
   * re-run after a crash recognises its own task instead of refusing the issue as already taken.
   */
  deliveryKey?: string | undefined;
}
