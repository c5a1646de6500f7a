// The owner/admin side and the sandbox's read of a request: list, dismiss, supply access by writing a secret with
// `capabilityRequestId` (rotation of a bound secret satisfies a repair again), view and redeliver e-mail.
import { authoriseSecretForTarget } from "../../../capability/authorise.js";
import { transitionCapabilityRequest } from "../../../capability/transitions.js";
import { ShellNameSchema } from "../../../envfile/overlay.js";
import type {
  CapabilityRequest,
  CapabilityRequestView,
  PutSecretBody,
  RedeliverResponse,
} from "../../../transport/wire.js";
import { domainError } from "../errors.js";
import { writeSecret } from "../secrets/store.js";
import { notificationsOf, requeueFailedDeliveries } from "./outbox.js";
import {
  getRequest,
  requestsBoundTo,
  requestsOfRepository,
  type StoredRequest,
  saveState,
  stateOf,
  toWire,
} from "./requests-store.js";
import type { CapabilityRuntime } from "./runtime.js";

export async function repositoryInWorkspace(
  rt: CapabilityRuntime,
  workspaceId: string,
  repoId: string,
): Promise<void> {
  const row = await rt.db.get("SELECT 1 FROM repositories WHERE id = ? AND workspace_id = ?", [
    repoId,
    workspaceId,
  ]);
  if (!row) throw domainError("not_found", "no such repository");
}

async function requestInRepository(
  rt: CapabilityRuntime,
  workspaceId: string,
  repoId: string,
  id: string,
): Promise<StoredRequest> {
  const request = await getRequest(rt.db, id);
  if (!request || request.workspaceId !== workspaceId || request.repositoryId !== repoId) {
    throw domainError("not_found", "no such capability request");
  }
  return request;
}

export async function listRequests(
  rt: CapabilityRuntime,
  workspaceId: string,
  repoId: string,
): Promise<CapabilityRequest[]> {
  await repositoryInWorkspace(rt, workspaceId, repoId);
  return (await requestsOfRepository(rt.db, workspaceId, repoId)).map(toWire);
}

export async function dismissRequest(
  rt: CapabilityRuntime,
  workspaceId: string,
  repoId: string,
  id: string,
): Promise<CapabilityRequest> {
  return await rt.db.transaction(async () => {
    const request = await requestInRepository(rt, workspaceId, repoId, id);
    const result = transitionCapabilityRequest(stateOf(request), { type: "dismiss" });
    if (!result.ok) throw domainError("request_closed", result.reason);
    await saveState(rt.db, id, result.state, rt.now().toISOString());
    return toWire((await getRequest(rt.db, id))!);
  });
}

export async function putSecret(
  rt: CapabilityRuntime,
  workspaceId: string,
  repoId: string,
  name: string,
  body: PutSecretBody,
) {
  if (!ShellNameSchema.safeParse(name).success) {
    throw domainError(
      "invalid_request",
      "secret name must be a shell variable name (letters, digits, '_'; not starting with a digit)",
    );
  }
  const now = rt.now();
  const at = now.toISOString();
  return await rt.db.transaction(async () => {
    await repositoryInWorkspace(rt, workspaceId, repoId);
    const clash = await rt.db.get("SELECT 1 FROM sandbox_env WHERE repository_id = ? AND name = ?", [
      repoId,
      name,
    ]);
    if (clash)
      throw domainError(
        "invalid_request",
        `${name} is a sandbox.env name of this repository; pick another secret name`,
      );
    const bound = await (body.capabilityRequestId
      ? requestInRepository(rt, workspaceId, repoId, body.capabilityRequestId)
      : null);
    let supplied: ReturnType<typeof transitionCapabilityRequest> | null = null;
    if (bound) {
      const auth = authoriseSecretForTarget(body.allowedHosts, {
        form: bound.targetForm,
        value: bound.target,
      });
      supplied = transitionCapabilityRequest(stateOf(bound), {
        type: "access_supplied",
        authorised: auth.authorised,
        ...(auth.authorised ? {} : { why: auth.why }),
      });
      // Refused before anything is written: the secret is unchanged.
      if (!supplied.ok) {
        const code = supplied.refusal === "not_authorised" ? "secret_hosts_mismatch" : "request_closed";
        throw domainError(code, supplied.reason);
      }
    }
    const written = await writeSecret(rt.db, rt.secretBox, {
      repositoryId: repoId,
      name,
      value: body.value,
      allowedHosts: body.allowedHosts,
      at,
    });
    const secretId = written.secretId;
    const existing = written.created ? undefined : { id: secretId };
    const changed = new Map<string, CapabilityRequest>();
    if (bound && supplied?.ok) {
      await saveState(rt.db, bound.requestId, supplied.state, at, { boundSecretId: secretId });
      changed.set(bound.requestId, toWire((await getRequest(rt.db, bound.requestId))!));
    }
    if (existing) {
      // Rotation of a bound secret satisfies a repair again on every request it is bound to.
      for (const request of await requestsBoundTo(rt.db, secretId)) {
        if (request.requestId === bound?.requestId) continue;
        const rotated = transitionCapabilityRequest(stateOf(request), { type: "secret_rotated" });
        if (rotated.ok && rotated.changed) {
          await saveState(rt.db, request.requestId, rotated.state, at);
          changed.set(request.requestId, toWire((await getRequest(rt.db, request.requestId))!));
        }
      }
    }
    return {
      name,
      allowedHosts: body.allowedHosts,
      created: existing === undefined,
      updatedAt: at,
      capabilityRequests: [...changed.values()],
    };
  });
}

/** `o***@acme.test`: the sandbox sees that a recipient failed without learning the address. */
export function maskRecipient(email: string): string {
  const [local = "", domain = ""] = email.split("@");
  return `${local.slice(0, 1)}***@${domain}`;
}

export async function viewRequest(
  rt: CapabilityRuntime,
  workspaceId: string,
  id: string,
): Promise<CapabilityRequestView> {
  const request = await getRequest(rt.db, id);
  if (!request || request.workspaceId !== workspaceId)
    throw domainError("not_found", "no such capability request");
  const notifications = (await notificationsOf(rt.db, id)).map((n) => ({
    id: n.id,
    kind: n.kind,
    createdAt: n.createdAt,
    deliveries: n.deliveries.map((d) => ({
      recipient: maskRecipient(d.recipient),
      state: d.state,
      attempts: d.attempts,
      lastError: d.lastError,
      sentAt: d.sentAt,
    })),
  }));
  return { request: toWire(request), notifications };
}

export async function redeliver(
  rt: CapabilityRuntime,
  workspaceId: string,
  id: string,
): Promise<RedeliverResponse> {
  await viewRequest(rt, workspaceId, id);
  const requeued = await rt.db.transaction(async () => requeueFailedDeliveries(rt.db, id, rt.now()));
  rt.kickMail();
  return {
    ...(await viewRequest(rt, workspaceId, id)),
    redelivered: requeued.map((r) => ({
      notificationId: r.notificationId,
      recipient: maskRecipient(r.recipient),
    })),
  };
}
