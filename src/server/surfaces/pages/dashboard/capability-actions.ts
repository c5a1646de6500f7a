// "Not now" (POST .../dismiss) and supplying a secret (POST .../secret) on a capability request, for owners and
// admins: the member routes' own dismissRequest and putSecret, with the same audit events. A member who posts gets
// the request page, 403, saying who can act. The secret's value reaches putSecret and nothing else: never a page,
// an answer or a log line.
import { AUDIT_EVENTS, logAuditEvent } from "../../../../audit/events.js";
import { dismissRequest, putSecret } from "../../../domain/capability/manage.js";
import { DomainError } from "../../../domain/errors.js";
import type { PagesDeps } from "../deps.js";
import { formFields } from "../tokens/forms.js";
import type { DashboardApp } from "./app.js";
import type { CapabilityPages } from "./capability-context.js";
import { DONE, DONE_PARAM, parseSecretForm } from "./capability-forms.js";
import { formGuards, SECRET_FORM_BYTES, SMALL_FORM_BYTES } from "./form-guards.js";
import { capabilityRefusalStatus, renderRefusal } from "./refusals.js";
import { paramOf, routeOf } from "./route-pattern.js";
import { capabilityDismissPath, capabilityRequestPath, capabilitySecretPath } from "./wire.js";

export function addCapabilityActions(app: DashboardApp, deps: PagesDeps, pages: CapabilityPages): void {
  const { rt, enter, findRequest, show, backToRequest, refuseMember } = pages;

  app.post(
    routeOf(capabilityDismissPath, "ws", "repo", "request"),
    ...formGuards(SMALL_FORM_BYTES),
    async (c) => {
      const { access, ws, repoId } = await enter(c);
      const requestId = paramOf(c, "request");
      if (access.membership.role === "member") return refuseMember(c, access, repoId, requestId);
      try {
        await dismissRequest(rt(), ws, repoId, requestId);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const refusal = renderRefusal(error.reason, backToRequest(ws, repoId, requestId));
        return show(
          c,
          access,
          { request: await findRequest(ws, repoId, requestId), refusal },
          capabilityRefusalStatus(error),
        );
      }
      logAuditEvent(deps.logger, AUDIT_EVENTS.capabilityDismissed, {
        requestId: c.get("requestId"),
        actor: c.get("webUser").email,
        workspace: ws,
        repository: repoId,
        capabilityRequestId: requestId,
      });
      return c.redirect(
        `${capabilityRequestPath(ws, repoId, requestId)}?${DONE_PARAM}=${DONE.dismissed}`,
        303,
      );
    },
  );

  app.post(
    routeOf(capabilitySecretPath, "ws", "repo", "request"),
    ...formGuards(SECRET_FORM_BYTES),
    async (c) => {
      const { access, ws, repoId } = await enter(c);
      const requestId = paramOf(c, "request");
      if (access.membership.role === "member") return refuseMember(c, access, repoId, requestId);
      const form = parseSecretForm(formFields(await c.req.parseBody()), requestId);
      const refuse = async (reason: string, status: number, name: string, allowedHosts: string) =>
        show(
          c,
          access,
          {
            request: await findRequest(ws, repoId, requestId),
            refusal: renderRefusal(reason, backToRequest(ws, repoId, requestId)),
            secretForm: { name, allowedHosts },
          },
          status,
        );
      if (!form.ok) return refuse(form.reason, 400, form.name, form.allowedHosts);
      let rotated: boolean;
      try {
        rotated = !(await putSecret(rt(), ws, repoId, form.name, form.body)).created;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return refuse(
          error.reason,
          capabilityRefusalStatus(error),
          form.name,
          form.body.allowedHosts.join("\n"),
        );
      }
      // The name only: the value never reaches a log line.
      logAuditEvent(deps.logger, AUDIT_EVENTS.secretWritten, {
        requestId: c.get("requestId"),
        actor: c.get("webUser").email,
        workspace: ws,
        repository: repoId,
        secretName: form.name,
        rotated,
      });
      return c.redirect(`${capabilityRequestPath(ws, repoId, requestId)}?${DONE_PARAM}=${DONE.secret}`, 303);
    },
  );
}
