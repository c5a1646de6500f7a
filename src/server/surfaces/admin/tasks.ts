// The task admin route (header `baton-admin-token`), mounted beside the admin app: in manual agent mode
// (`baton serve --agent manual`) an operator ends a task's waiting turn with a reply, a question or a failure.
// The answer returns once the turn's end is recorded, so the task read right after shows it.
import { createRoute, z } from "@hono/zod-openapi";
import { TURN_ANSWER_ERRORS, WIRE_ERRORS } from "../../../transport/wire.js";
import { isManualAgent } from "../../adapters/agents/manual.js";
import { getTask } from "../../domain/tasks/task-store.js";
import { describeForbiddenCharacter, findForbiddenCharacter } from "../../domain/tasks/text-rules.js";
import { mapDomainErrors } from "../http/domain-errors.js";
import { HttpError, invalidRequest, notFound } from "../http/http-error.js";
import { jsonBody, KiB } from "../http/json-body.js";
import { createSurface } from "../http/surface.js";
import { errorResponses, jsonContent, pathParam, Schemas as S, SECURITY } from "../openapi/schemas.js";
import { answerTurn } from "./answer-turn.js";
import { adminAuth } from "./app.js";
import type { AdminDeps } from "./deps.js";
import { ADMIN_DOMAIN_ANSWERS } from "./domain-errors.js";

const ERRORS = errorResponses({
  400: "invalid_request: the body names the field to fix",
  401: "invalid_token: the admin token is missing or wrong",
  404: "not_found: no such task (or the admin API is disabled)",
  409: "agent_not_manual: the service was not started with --agent manual; turn_not_waiting: the task has no turn waiting for an answer",
  413: "payload_too_large: the body is over the route's limit",
  415: "unsupported_media_type: the body is not application/json",
  503: "owner_unreachable: another instance runs the turn and cannot be reached now; the reason says when to answer again",
});
/** A reply may be as long as a prompt (100,000 characters, up to 4 bytes each). */
const ANSWER_BODY = 512 * KiB;

export function createTaskAdminApp(deps: AdminDeps) {
  const app = createSurface();
  app.onError(mapDomainErrors(ADMIN_DOMAIN_ANSWERS));
  app.openapi(
    createRoute({
      method: "post",
      path: "/tasks/{id}/answer",
      summary:
        "manual agent mode: end a task's waiting turn with a reply, a clarifying question or a failure; answers once the turn's end is recorded",
      security: SECURITY.admin,
      middleware: [adminAuth(deps), ...jsonBody("answer", ANSWER_BODY)] as const,
      request: {
        params: z.object({ id: pathParam() }),
        body: { required: true, ...jsonContent(S.AnswerTurnBody, "reply, clarify or fail, and its text") },
      },
      responses: { 200: jsonContent(S.AnswerTurnResponse, "the turn ended with the answer"), ...ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const answer = c.req.valid("json");
      // The member reads it as the agent's words: the rule of every text a member sends holds for it too.
      const forbidden = findForbiddenCharacter(answer.text, "text");
      if (forbidden) throw invalidRequest(describeForbiddenCharacter("text", forbidden));
      const agent = deps.tasks.agent;
      if (!isManualAgent(agent))
        throw new HttpError(
          409,
          TURN_ANSWER_ERRORS.agentNotManual,
          `this service's agent is ${agent.name}, which answers turns itself; start baton serve with --agent manual to answer them by hand`,
        );
      if (!(await getTask(deps.db, id))) throw notFound("no such task");
      // Here, or on the instance that runs the turn (several instances on one PostgreSQL).
      const outcome = await answerTurn(deps, id, answer);
      if ("unreachable" in outcome)
        throw new HttpError(503, WIRE_ERRORS.ownerUnreachable, outcome.unreachable);
      if (!outcome.answered) {
        const task = (await getTask(deps.db, id))!;
        throw new HttpError(
          409,
          TURN_ANSWER_ERRORS.turnNotWaiting,
          task.open_turn_state === "queued"
            ? "the task's turn is queued: it waits for a running slot, not for an answer; answer or stop a running task first"
            : task.open_turn_id === null
              ? `the task has no open turn (status ${task.status}); a member's follow-up opens one`
              : "the task's turn is starting and not yet waiting for an answer; retry in a moment",
        );
      }
      return c.json(
        { taskId: id, workspaceId: outcome.workspaceId, kind: answer.kind, status: outcome.status },
        200,
      );
    },
  );
  return app;
}
