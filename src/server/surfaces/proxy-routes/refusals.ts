// The proxy's refusals, kept per sandbox (the latest 200 each) and read back by that sandbox only.
import type { ProxyRefusal, ReportRefusalsBody } from "../../../proxy/lease/wire.js";
import type { Store } from "../../store/store.js";

const KEEP_PER_SANDBOX = 200;

export async function recordRefusals(db: Store, body: ReportRefusalsBody): Promise<number> {
  return await db.transaction(async () => {
    const touched = new Set<string>();
    let stored = 0;
    for (const r of body.refusals) {
      if (!(await db.get("SELECT 1 FROM sandboxes WHERE id = ?", [r.sandboxId]))) continue;
      await db.run(
        `INSERT INTO proxy_refusals (sandbox_id, request_id, at, method, host, port, code, status, reason)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [r.sandboxId, r.requestId, r.at, r.method, r.host, r.port, r.code, r.status, r.reason],
      );
      touched.add(r.sandboxId);
      stored += 1;
    }
    for (const id of touched) {
      await db.run(
        `DELETE FROM proxy_refusals WHERE sandbox_id = ? AND seq NOT IN
           (SELECT seq FROM proxy_refusals WHERE sandbox_id = ? ORDER BY seq DESC LIMIT ${KEEP_PER_SANDBOX})`,
        [id, id],
      );
    }
    return stored;
  });
}

export async function refusalsOf(db: Store, sandboxId: string, limit = 50): Promise<ProxyRefusal[]> {
  const rows = (await db.all(
    `SELECT request_id, at, method, host, port, code, status, reason FROM proxy_refusals
       WHERE sandbox_id = ? ORDER BY seq DESC LIMIT ?`,
    [sandboxId, limit],
  )) as {
    request_id: string;
    at: string;
    method: string;
    host: string;
    port: number;
    code: string;
    status: number;
    reason: string;
  }[];
  return rows.reverse().map((r) => ({
    requestId: r.request_id,
    at: r.at,
    method: r.method,
    host: r.host,
    port: r.port,
    code: r.code,
    status: r.status,
    reason: r.reason,
  }));
}
