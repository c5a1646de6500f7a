// The `state` of the install flows (`GET /install/codehost`, `GET /install/tracker`): sealed with the operator's
// key over the flow, the workspace and a nonce (so it cannot be forged or moved to another workspace), bound to
// the member who started the flow, single-use, and good for ten minutes. Only its hash is stored, with the PKCE
// verifier of the tracker's flow sealed beside it. Pure over the store and the key; the callbacks turn a refusal
// into a page saying what to do.
import { randomBytes } from "node:crypto";
import type { SecretBox } from "../../primitives/secret-box.js";
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";

export type InstallKind = "codehost" | "tracker";

export const INSTALL_STATE_TTL_MS = 10 * 60 * 1000;
const SCOPE = "install-state";
const verifierScope = (kind: InstallKind) => `install-state/${kind}/verifier`;

/** A new state for `userId` installing into (or linking with) `workspaceId`; `verifier`: the PKCE verifier. */
export async function issueInstallState(
  db: Store,
  box: SecretBox,
  input: { kind: InstallKind; workspaceId: string; userId: string; verifier?: string | undefined },
  now: Date,
): Promise<string> {
  const state = box.seal(
    SCOPE,
    JSON.stringify({ k: input.kind, w: input.workspaceId, n: randomBytes(16).toString("base64url") }),
  );
  await db.run(
    `INSERT INTO install_states (state_hash, kind, workspace_id, user_id, verifier_sealed, expires_at_ms)
     VALUES (?, ?, ?, ?, ?, ?)`,
    [
      hashCredential(state),
      input.kind,
      input.workspaceId,
      input.userId,
      input.verifier ? box.seal(verifierScope(input.kind), input.verifier) : null,
      now.getTime() + INSTALL_STATE_TTL_MS,
    ],
  );
  // Old states go with each new one: the table holds only the last ten minutes' flows.
  await db.run("DELETE FROM install_states WHERE expires_at_ms < ?", [now.getTime() - INSTALL_STATE_TTL_MS]);
  return state;
}

export type InstallStateRefusal = "missing" | "invalid" | "used" | "expired" | "other_member";

export type ConsumedInstallState =
  | { ok: true; workspaceId: string; verifier: string | null }
  | { ok: false; refusal: InstallStateRefusal };

/** Checks and uses up a state presented to the `kind` callback by `userId` (the signed-in member). */
export async function consumeInstallState(
  db: Store,
  box: SecretBox,
  input: { kind: InstallKind; state: string | null | undefined; userId: string },
  now: Date,
): Promise<ConsumedInstallState> {
  if (!input.state) return { ok: false, refusal: "missing" };
  let sealed: { k?: unknown; w?: unknown };
  try {
    sealed = JSON.parse(box.open(SCOPE, input.state)) as { k?: unknown; w?: unknown };
  } catch {
    return { ok: false, refusal: "invalid" };
  }
  const row = (await db.get(
    "SELECT kind, workspace_id, user_id, verifier_sealed, expires_at_ms, used_at_ms FROM install_states WHERE state_hash = ?",
    [hashCredential(input.state)],
  )) as
    | {
        kind: InstallKind;
        workspace_id: string;
        user_id: string;
        verifier_sealed: string | null;
        expires_at_ms: number;
        used_at_ms: number | null;
      }
    | undefined;
  if (!row || row.kind !== input.kind || sealed.k !== input.kind || sealed.w !== row.workspace_id)
    return { ok: false, refusal: "invalid" };
  if (row.used_at_ms !== null) return { ok: false, refusal: "used" };
  if (row.expires_at_ms <= now.getTime()) return { ok: false, refusal: "expired" };
  if (row.user_id !== input.userId) return { ok: false, refusal: "other_member" };
  await db.run("UPDATE install_states SET used_at_ms = ? WHERE state_hash = ?", [
    now.getTime(),
    hashCredential(input.state),
  ]);
  return {
    ok: true,
    workspaceId: row.workspace_id,
    verifier: row.verifier_sealed ? box.open(verifierScope(input.kind), row.verifier_sealed) : null,
  };
}
