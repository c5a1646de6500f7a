// Runs one activation to its end inside a single transaction: either the ledger, overlay revision and
// `succeeded` state commit together, or nothing but a terminal `failed` does. A crash before COMMIT leaves the
// operation exactly as it was, so the worker can safely run it again after a restart.
import type { Overlay } from "../../../envfile/overlay.js";
import { InputError } from "../../../errors.js";
import { assignVariableNames, type NamingLedger, reserveRepositoryNames } from "../../../naming/index.js";
import { type ActivationResult, OPERATION_ERRORS } from "../../../transport/wire.js";
import { type Finished, markFailed, markSucceeded, type OperationRow } from "../../store/operations.js";
import type { Store } from "../../store/store.js";
import { type AllowedFacts, loadActivationInputs } from "./activation-inputs.js";
import { buildOverlay, variableMapping } from "./build-overlay.js";
import {
  disconnectedRepositoryIds,
  loadLedger,
  nextOverlayRevision,
  rememberActivatedRepository,
  saveLedger,
  saveOverlay,
} from "./engagement-state.js";
import { buildManagedStartup } from "./managed-startup.js";

export interface Failure {
  code: string;
  reason: string;
}

/**
 * How an activation ended: the failure it recorded, or the overlay it committed with `succeeded`; `finished` is
 * what it wrote to the operation's row (absent when a failure found the row no longer open).
 */
export type ActivationOutcome =
  | { failure: Failure; finished: Finished | undefined }
  | { overlay: Overlay; finished: Finished };

/** Why the operation may no longer run: turn or lease expired, rollout off, repository disconnected. */
export async function checkStillAllowed(
  db: Store,
  op: OperationRow,
  nowMs: number,
): Promise<Failure | undefined> {
  const facts = (await db.get(
    `SELECT (SELECT expires_at_ms FROM turns WHERE id = ?) AS turn_expires,
       (SELECT lease_expires_at_ms FROM sandboxes WHERE id = ?) AS lease_expires,
       (SELECT rollout_repository_environments FROM workspaces WHERE id = ?) AS rollout,
       (SELECT connected FROM repositories WHERE id = ?) AS connected`,
    [op.turn_id, op.sandbox_id, op.workspace_id, op.repository_id],
  )) as AllowedFacts;
  return refusalOf(facts, op, nowMs);
}

/** The refusal `facts` (read in the transaction that commits) give at `nowMs`, if any. Pure. */
export function refusalOf(
  facts: AllowedFacts,
  op: Pick<OperationRow, "repository">,
  nowMs: number,
): Failure | undefined {
  if (facts.turn_expires <= nowMs) {
    return {
      code: OPERATION_ERRORS.turnExpired,
      reason: "the turn authorisation expired before the activation finished; run it again in the next turn",
    };
  }
  if (facts.lease_expires <= nowMs) {
    return {
      code: OPERATION_ERRORS.leaseExpired,
      reason:
        "the sandbox lease expired before the activation finished; a revived sandbox can activate again",
    };
  }
  if (facts.rollout !== 1) {
    return {
      code: OPERATION_ERRORS.rolloutDisabled,
      reason: "repository environments were disabled for this workspace while the activation waited",
    };
  }
  if (facts.connected !== 1) {
    return {
      code: OPERATION_ERRORS.repositoryDisconnected,
      reason: `${op.repository} was disconnected from the workspace`,
    };
  }
  return undefined;
}

/** The ledger with the names of every disconnected repository of the workspace reserved. */
async function withDisconnectedReserved(
  db: Store,
  ledger: NamingLedger,
  workspaceId: string,
): Promise<NamingLedger> {
  for (const id of await disconnectedRepositoryIds(db, workspaceId))
    ledger = reserveRepositoryNames(ledger, id);
  return ledger;
}

/** Reserves the names of repositories that were disconnected since the ledger was last written. */
export async function reserveDisconnected(
  db: Store,
  engagementId: string,
  workspaceId: string,
): Promise<void> {
  const loaded = await loadLedger(db, engagementId);
  await saveLedger(
    db,
    engagementId,
    (await withDisconnectedReserved(db, loaded, workspaceId)).entries,
    loaded.entries,
  );
}

/**
 * Call inside a transaction. Returns the failure it recorded, or the overlay the operation succeeded with. Reads
 * everything in one statement (activation-inputs.ts) and writes, once the engagement has activated the repository
 * before, three rows: the engagement's revision, the overlay, the operation. `notify` false: nobody can wait on
 * the operation yet (it was inserted in this same transaction), so there is no one to wake.
 */
export async function commitActivation(
  db: Store,
  op: OperationRow,
  now: Date,
  options: { notify?: boolean } = {},
): Promise<ActivationOutcome> {
  const notify = options.notify ?? true;
  const inputs = await loadActivationInputs(db, op);
  const refusal = refusalOf(inputs.allowed, op, now.getTime());
  if (refusal) {
    return {
      failure: refusal,
      finished: await markFailed(db, op.id, refusal.code, refusal.reason, now, { notify }),
    };
  }
  const loaded = inputs.ledger;
  let reserved = loaded;
  for (const id of inputs.disconnected) reserved = reserveRepositoryNames(reserved, id);
  let ledger: NamingLedger;
  try {
    ledger = assignVariableNames(reserved, {
      repositoryId: op.repository_id,
      repository: op.repository,
      variables: inputs.variableNames,
    }).ledger;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    await saveLedger(db, op.engagement_id, reserved.entries, loaded.entries);
    const failure = { code: OPERATION_ERRORS.invalidConfiguration, reason: error.message };
    return {
      failure,
      finished: await markFailed(db, op.id, failure.code, failure.reason, now, { notify }),
    };
  }
  await saveLedger(db, op.engagement_id, ledger.entries, loaded.entries);
  if (!inputs.remembered) await rememberActivatedRepository(db, op.engagement_id, op.repository_id);
  const revision = await nextOverlayRevision(db, op.engagement_id);
  const overlay = buildOverlay(revision, inputs.configurations, ledger.entries);
  await saveOverlay(db, op.engagement_id, op.id, overlay, now);
  const result: ActivationResult = {
    overlayRevision: revision,
    variables: variableMapping(overlay),
    requestId: null,
    managedStartup: buildManagedStartup(op.repository, inputs.version),
  };
  return { overlay, finished: await markSucceeded(db, op.id, revision, result, now, { notify }) };
}
