// Posts the replies queued in `issue_posts` back to their issues: through the code host (repository and issue
// number) or the tracker (issue id), oldest first, each with a hidden marker naming its entry so the webhook of
// the service's own comment is ignored. A failed post retries with backoff, then is recorded `failed`. Delivery
// is at least once: a crash between posting and recording posts that reply again once the dead instance's lease
// on it runs out (on any instance). Live instances never post the same reply twice: each claims it first.

import type { Logger } from "pino";
import { describeThrown } from "../../../errors.js";
import type { Codehost } from "../../adapters/codehost/port.js";
import type { Tracker } from "../../adapters/tracker/port.js";
import { DEFAULT_QUEUE_LEASE_MS, whileHeld } from "../../store/hold-claim.js";
import type { Store } from "../../store/store.js";
import { WAKE_CHANNELS, WORK_QUEUES } from "../../store/wake-channels.js";
import {
  anyPostClaimable,
  claimDuePost,
  finishPost,
  ISSUE_POST_CLAIM,
  nextPostDueAt,
} from "../tasks/issue-post-queue.js";
import { postMarker } from "./issue-members.js";
import { backoffMs, WorkLoop } from "./work-loop.js";

export const MAX_POST_ATTEMPTS = 8;

interface Due {
  entry_id: string;
  attempts: number;
  body: string;
  workspace_id: string;
  source: string;
  repo: string | null;
  ticket_id: string;
  ticket_number: number | null;
}

export interface IssueReplyWorkerOptions {
  db: Store;
  now: () => Date;
  logger: Logger;
  commit: <T>(work: () => Promise<T>) => Promise<T>;
  codehost: Codehost;
  tracker: Tracker;
  /** How often the outbox is looked at when no notification woke it; default the lease. */
  pollMs?: number;
  retryBaseMs?: number;
  /** Who claims posts: this instance's id (InstanceIdentity.id). */
  owner: string;
  /** How long a claim lasts unless renewed; default DEFAULT_QUEUE_LEASE_MS. */
  leaseMs?: number | undefined;
}

/** The comment posted for an entry: its text and the marker that names it. */
export const issuePostBody = (entryId: string, body: string): string => `${body}\n\n${postMarker(entryId)}`;

export class IssueReplyWorker {
  private readonly loop: WorkLoop;

  constructor(private readonly options: IssueReplyWorkerOptions) {
    this.loop = new WorkLoop({
      step: () => this.step(),
      dueAt: () => nextPostDueAt(options.db),
      now: () => options.now().getTime(),
      // New replies wake the worker by the store's notification; the poll only covers a lost one and a dead
      // instance's claims.
      idleMs: options.pollMs ?? options.leaseMs ?? DEFAULT_QUEUE_LEASE_MS,
      wakeOn: (wake) =>
        options.db.listen(WAKE_CHANNELS.workQueues, (queue) => {
          if (queue === WORK_QUEUES.issuePosts || queue === "") wake();
        }),
    });
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async step(): Promise<boolean> {
    const { db, commit, logger, owner } = this.options;
    const leaseMs = this.options.leaseMs ?? DEFAULT_QUEUE_LEASE_MS;
    const now = () => this.options.now().getTime();
    if (!(await anyPostClaimable(db, now()))) return false;
    const entryId = await claimDuePost(db, { owner, leaseMs, nowMs: now() });
    if (entryId === undefined) return false;
    const held = { entryId, owner };
    const renewal = {
      leaseMs,
      now,
      onError: (error: unknown) =>
        logger.warn({ entry: entryId, err: describeThrown(error) }, "could not renew an issue reply's lease"),
    };
    await whileHeld(db, { ...ISSUE_POST_CLAIM, id: entryId, owner }, renewal, async () => {
      const due = (await db.get(
        `SELECT p.entry_id, p.attempts, m.body, t.workspace_id, t.source, t.repo, t.ticket_id, t.ticket_number
         FROM issue_posts p JOIN task_messages m ON m.id = p.entry_id JOIN tasks t ON t.id = p.task_id
         WHERE p.entry_id = ?`,
        [entryId],
      )) as Due | undefined;
      const attempts = (due?.attempts ?? 0) + 1;
      try {
        if (!due) throw new Error("the reply's entry or task no longer exists");
        await this.post(due);
        await commit(() =>
          finishPost(db, held, { state: "posted", attempts, posted_at: this.options.now().toISOString() }),
        );
      } catch (error) {
        const failed = attempts >= MAX_POST_ATTEMPTS;
        const next = now() + backoffMs(attempts, this.options.retryBaseMs);
        await commit(() =>
          finishPost(db, held, {
            state: failed ? "failed" : "queued",
            attempts,
            next_attempt_at_ms: next,
          }),
        );
        logger.warn(
          { entry: entryId, attempts, err: describeThrown(error) },
          failed
            ? "a reply could not be posted to its issue; giving up"
            : "a reply could not be posted to its issue; will retry",
        );
      }
    });
    return true;
  }

  private post(due: Due): Promise<void> {
    const body = issuePostBody(due.entry_id, due.body);
    if (due.source === "tracker")
      return this.options.tracker.postComment({
        workspaceId: due.workspace_id,
        issueId: due.ticket_id,
        body,
      });
    if (due.repo === null || due.ticket_number === null)
      return Promise.reject(new Error("the task names no repository and issue number to post to"));
    return this.options.codehost.postComment({
      workspaceId: due.workspace_id,
      repo: due.repo,
      number: due.ticket_number,
      body,
    });
  }
}
