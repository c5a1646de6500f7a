import { randomBytes } from "node:crypto";
import { freemem } from "node:os";
import type { Logger } from "pino";
import { BATONRC_FILE, type Batonrc, type BatonrcProblem, lintBatonrc } from "../../../config/batonrc.js";
import { readBatonrcFile } from "../../../config/batonrc-file.js";
import { withoutOperatorCredentials } from "../../../credentials/operator-credentials.js";
import { BatonError } from "../../../errors.js";
import { createSanitiser } from "../../../evidence/sanitiser.js";
import { type InstanceIdentity, newInstanceIdentity } from "../../primitives/instance.js";
import type { Store } from "../../store/store.js";
import type { CodehostPushAccess } from "../codehost/push-credentials.js";
import { type InstanceRelay, InstanceUnreachable, RemoteRefusal } from "../instances/relay.js";
import { archiveFolder, extractArchive } from "./archive.js";
import { logSandboxCreated, logSandboxTransition } from "./audit-events.js";
import { releaseBoxOwnership, renewBoxOwnership, takeBoxOwnership } from "./box-owners.js";
import {
  BOX_REQUESTS,
  type BoxRequestKind,
  ExecResultSchema,
  isRefusalReason,
  serveBoxRequests,
} from "./box-requests.js";
import { resolveCheckout } from "./checkout-root.js";
import { type IssuedSandbox, issueSandbox, renewSandbox } from "./credentials.js";
import type {
  BoxProcess,
  CreatedBox,
  ExecOptions,
  ExecResult,
  SandboxDriver,
  SpawnOptions,
} from "./driver.js";
import { buildBoxEnvironment, credentialEnvironment } from "./environment.js";
import {
  decideOnCleanup,
  decideOnEvent,
  decideOnSweep,
  isReusable,
  type LifecycleEvent,
  type Transition,
} from "./lifecycle.js";
import { BOX_OWNER_LEASE_MS, decideOwnership } from "./ownership.js";
import { BoxPool } from "./pool.js";
import { mergeSandboxEnv } from "./sandbox-env.js";
import {
  applyTransition,
  type BoxRow,
  getBox,
  insertBox,
  latestBoxOf,
  listBoxes,
  type PreCloneRecord,
  pinImage,
  pinnedImageOf,
  setPreClone,
  touchActivity,
  transitionsOf,
} from "./store.js";

export const PRE_CLONE_TIMEOUT_MS = 10 * 60 * 1000;
const PRE_CLONE_OUTPUT_CHARS = 16 * 1024;
export const SWEEP_INTERVAL_MS = 60 * 1000;
export const CLEANUP_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** What a relayed exec may take beyond its own time limit (the store round trips, a busy owner). */
const RELAY_MARGIN_MS = 30_000;
/** The longest a relayed stop, archive or removal of a box may take on its owner. */
const EVENT_TIMEOUT_MS = 120_000;
const COPY_OUT_TIMEOUT_MS = 300_000;

/** Why the manager refused; the admin routes map each to a status. */
export class SandboxRefusal extends BatonError {
  override readonly name = "SandboxRefusal";
  constructor(
    readonly reason:
      | "workspace_not_found"
      | "engagement_elsewhere"
      | "sandbox_not_found"
      | "batonrc_invalid"
      | "checkout_refused"
      /** Another instance runs the box and cannot be reached now (stopped, killed, stalled). */
      | "owner_unreachable",
    message: string,
    readonly problems: BatonrcProblem[] = [],
  ) {
    super(
      reason === "batonrc_invalid" || reason === "checkout_refused"
        ? "invalid_input"
        : reason === "engagement_elsewhere"
          ? "conflict"
          : reason === "owner_unreachable"
            ? "network"
            : "not_found",
      message,
    );
  }
}

export interface ProvisionInput {
  workspaceId: string;
  engagementId: string;
  /** Reuse this sandbox (it must belong to the workspace and engagement). */
  sandboxId?: string | undefined;
  repository?: string | undefined;
  /** A folder on the service's machine copied into the box (`baton/testing`, `baton env test`). */
  checkout?: string | undefined;
  /** More checkouts copied in beside the first (`owner/name` → folder on the service's machine). */
  extraCheckouts?: Record<string, string> | undefined;
  /** `.batonrc.json` of a known repository when no checkout is given. */
  batonrc?: unknown;
  /** The same as read from the code host's default branch (the task engine's sandboxes), linted as a file is. */
  batonrcText?: string | undefined;
  image?: string | undefined;
  leaseTtlSeconds?: number | undefined;
  turnTtlSeconds?: number | undefined;
  /**
   * Credentials the caller already issued in its own transaction (the task engine, as a turn begins): a renewal
   * for the engagement's box it expects to reuse, or a new sandbox id that has no box yet.
   */
  issued?: IssuedSandbox | undefined;
}

export interface ProvisionResult {
  issued: IssuedSandbox;
  box: SandboxView;
  env: Record<string, string>;
  reused: boolean;
  /** `host:port` at which the box reaches the proxy and the service. */
  reach: CreatedBox["reach"];
}

export interface SandboxView {
  sandboxId: string;
  workspaceId: string;
  engagementId: string;
  driver: string;
  ref: string | null;
  image: string;
  repository: string | null;
  state: BoxRow["state"];
  lastActivityAt: string;
  stateChangedAt: string;
  createdAt: string;
  preClone: PreCloneRecord[];
  postClone: string[];
  transitions: Awaited<ReturnType<typeof transitionsOf>>;
}

export interface Owner {
  workspaceId: string;
  engagementId: string;
}

export interface SandboxManagerOptions {
  db: Store;
  driver: SandboxDriver;
  defaultImage: string;
  now: () => Date;
  logger: Logger;
  preCloneTimeoutMs?: number;
  /** `--checkout-root`, already checked (checkCheckoutRoot) and real: checkouts come only from under it. */
  checkoutRoot?: string | undefined;
  /** The installation giving a repository at the real code host: its box pushes with the token's placeholder. */
  codehostPush?: ((workspaceId: string, repo: string) => Promise<CodehostPushAccess | undefined>) | undefined;
  /** This instance: the boxes it makes are recorded as its own (a new identity when not given). */
  instance?: InstanceIdentity | undefined;
  /**
   * The store admits one instance only (SQLite behind its lock file): any other owner recorded is a previous run
   * of this service, so its boxes are adopted at once. False on PostgreSQL: a box is adopted only once its
   * owner's hold has run out, and only on the owner's machine.
   */
  exclusiveStore?: boolean | undefined;
  /** How long this instance's hold on its boxes lasts unless renewed; default BOX_OWNER_LEASE_MS. */
  ownerLeaseMs?: number | undefined;
  /** The catalog agents the default image holds (image.json `agents`): those a workspace may choose. */
  imageAgents?: readonly string[] | undefined;
  /** The pool of ready boxes of the default image (`--sandbox-pool-size`); none or size 0: every box is created. */
  pool?: SandboxPoolOptions | undefined;
  /**
   * Reaches the instance that owns a box this one cannot drive (several instances on PostgreSQL): admin exec,
   * copy-out, removal and events on another instance's box are done by that instance. None: such a box is refused.
   */
  relay?: InstanceRelay | undefined;
}

export interface SandboxPoolOptions {
  size: number;
  /** The pool makes a box only while the machine has at least this much memory available (bytes). */
  minFreeMemoryBytes: number;
  /** The machine's available memory in bytes; default `os.freemem()` (MemAvailable on Linux). */
  freeMemory?: (() => number) | undefined;
}

export class SandboxManager {
  private readonly credentials = new Map<string, { turnToken: string; lease: string }>();
  private timers: NodeJS.Timeout[] = [];
  private busy: Promise<unknown> = Promise.resolve();
  private readonly instance: InstanceIdentity;
  private readonly ownerLeaseMs: number;

  private readonly pool: BoxPool | undefined;

  constructor(private readonly options: SandboxManagerOptions) {
    this.instance = options.instance ?? newInstanceIdentity();
    this.ownerLeaseMs = options.ownerLeaseMs ?? BOX_OWNER_LEASE_MS;
    const pool = options.pool;
    if (pool && pool.size > 0) {
      const freeMemory = pool.freeMemory ?? freemem;
      this.pool = new BoxPool({
        driver: options.driver,
        image: options.defaultImage,
        size: pool.size,
        memoryAllows: () => freeMemory() >= pool.minFreeMemoryBytes,
        name: () => `baton-sandbox-pool-${randomBytes(6).toString("hex")}`,
        onError: (error, what) => options.logger.warn({ err: (error as Error).message }, what),
      });
    }
    if (options.relay) serveBoxRequests(options.relay, this);
  }

  /** Starts filling the pool of ready boxes in the background (after `reconcile`, as the service starts). */
  startPool(): void {
    this.pool?.refill();
  }

  /** The pool's bookkeeping (tests, the benchmark): undefined when the service keeps no pool. */
  get boxPool(): BoxPool | undefined {
    return this.pool;
  }

  /** The instance whose boxes this manager runs. */
  get owner(): InstanceIdentity {
    return this.instance;
  }

  /** The catalog agents the default image holds (its agents layer), by id. */
  get imageAgents(): readonly string[] {
    return this.options.imageAgents ?? [];
  }

  private ownership(row: BoxRow) {
    return decideOwnership(row, this.instance, this.nowMs(), this.options.exclusiveStore);
  }

  /** Takes `row` for this instance if no live instance holds it; false when one does (or took it first). */
  private takeOver(row: BoxRow): Promise<boolean> {
    const nowMs = this.nowMs();
    return takeBoxOwnership(this.options.db, row.sandboxId, {
      me: this.instance,
      leaseUntilMs: nowMs + this.ownerLeaseMs,
      nowMs,
      exclusive: this.options.exclusiveStore,
    });
  }

  /** Renews this instance's hold on its boxes (every third of the lease while the timers run). */
  renewOwnership(): Promise<number> {
    return renewBoxOwnership(this.options.db, this.instance, this.nowMs() + this.ownerLeaseMs);
  }

  /** The agent's home inside every box. */
  get home(): string {
    return this.options.driver.home;
  }

  get driverName(): string {
    return this.options.driver.name;
  }

  private nowMs(): number {
    return this.options.now().getTime();
  }

  async view(row: BoxRow): Promise<SandboxView> {
    const batonrc = row.batonrc as Batonrc | null;
    return {
      sandboxId: row.sandboxId,
      workspaceId: row.workspaceId,
      engagementId: row.engagementId,
      driver: row.driver,
      ref: row.boxRef,
      image: row.image,
      repository: row.repository,
      state: row.state,
      lastActivityAt: new Date(row.lastActivityAtMs).toISOString(),
      stateChangedAt: new Date(row.stateChangedAtMs).toISOString(),
      createdAt: new Date(row.createdAtMs).toISOString(),
      preClone: row.preClone,
      postClone: batonrc?.post_clone ?? [],
      transitions: await transitionsOf(this.options.db, row.sandboxId),
    };
  }

  /** The box of `sandboxId` if `owner` owns it; otherwise not found (never revealing that it exists). */
  async owned(sandboxId: string, owner: Owner): Promise<BoxRow> {
    const row = await getBox(this.options.db, sandboxId);
    if (!row || row.workspaceId !== owner.workspaceId || row.engagementId !== owner.engagementId)
      throw new SandboxRefusal("sandbox_not_found", "no such sandbox in that workspace and engagement");
    return row;
  }

  async readBatonrc(input: ProvisionInput): Promise<Batonrc | null> {
    let text: string | undefined;
    if (input.checkout) {
      text = readBatonrcFile(input.checkout) ?? undefined;
    } else if (input.batonrc !== undefined) text = JSON.stringify(input.batonrc);
    else if (input.batonrcText !== undefined) text = input.batonrcText;
    if (text === undefined) return null;
    const lint = lintBatonrc(text);
    if (!lint.ok)
      throw new SandboxRefusal(
        "batonrc_invalid",
        `${BATONRC_FILE}: ${lint.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
        lint.problems,
      );
    return lint.config;
  }

  /** The input with every checkout replaced by its real path under the checkout root, or a refusal. */
  private confineCheckouts(input: ProvisionInput): ProvisionInput {
    const confine = (requested: string): string => {
      const decision = resolveCheckout(requested, this.options.checkoutRoot);
      if (!decision.ok) throw new SandboxRefusal("checkout_refused", decision.reason);
      return decision.path;
    };
    return {
      ...input,
      ...(input.checkout ? { checkout: confine(input.checkout) } : {}),
      ...(input.extraCheckouts
        ? {
            extraCheckouts: Object.fromEntries(
              Object.entries(input.extraCheckouts).map(([repository, path]) => [repository, confine(path)]),
            ),
          }
        : {}),
    };
  }

  async provision(requested: ProvisionInput): Promise<ProvisionResult> {
    const { db, driver } = this.options;
    // Before anything reads a checkout (its .batonrc.json included).
    const input = this.confineCheckouts(requested);
    const batonrc = await this.readBatonrc(input);
    const now = this.options.now();
    const engagement = (await db.get("SELECT workspace_id FROM engagements WHERE id = ?", [
      input.engagementId,
    ])) as { workspace_id: string } | undefined;
    if (!(await db.get("SELECT 1 FROM workspaces WHERE id = ?", [input.workspaceId])))
      throw new SandboxRefusal("workspace_not_found", "no such workspace; seed it first");
    if (engagement && engagement.workspace_id !== input.workspaceId)
      throw new SandboxRefusal(
        "engagement_elsewhere",
        "that engagement id belongs to another workspace; pick another id",
      );

    // Reuse: the named sandbox (ownership checked) or the engagement's newest one, when its box still exists.
    const candidate = await (input.sandboxId
      ? this.owned(input.sandboxId, input)
      : engagement
        ? latestBoxOf(db, input.engagementId)
        : undefined);
    // A box another live instance runs (or another machine's) is not this instance's to reuse or record lost:
    // the engagement gets a new box here, and the other stays with its owner until its sweeps retire it.
    const reachable =
      candidate !== undefined &&
      (this.ownership(candidate) === "mine" ||
        (this.ownership(candidate) === "adoptable" && (await this.takeOver(candidate))));
    if (candidate && !reachable)
      this.options.logger.info(
        { sandboxId: candidate.sandboxId, owner: candidate.ownerInstance },
        "the engagement's box belongs to another live instance; making a new one here",
      );
    if (candidate && reachable && isReusable(candidate.state) && candidate.boxRef) {
      if (await driver.exists(candidate.boxRef)) {
        const issued =
          input.issued?.sandboxId === candidate.sandboxId
            ? input.issued
            : await renewSandbox(
                db,
                {
                  sandboxId: candidate.sandboxId,
                  engagementId: candidate.engagementId,
                  leaseTtlSeconds: input.leaseTtlSeconds,
                  turnTtlSeconds: input.turnTtlSeconds,
                },
                now,
              );
        this.credentials.set(candidate.sandboxId, { turnToken: issued.turnToken, lease: issued.lease });
        await this.event(candidate.sandboxId, "activity");
        const row = (await getBox(db, candidate.sandboxId))!;
        return {
          issued,
          box: await this.view(row),
          env: credentialEnvironment(row.reach, issued.turnToken, issued.lease),
          reused: true,
          reach: row.reach,
        };
      }
      // The driver no longer has it (removed outside Baton, or the service restarted): recorded as gone, so
      // no sweep works on it again, and replaced below with the engagement's pinned image.
      await this.event(candidate.sandboxId, "lost");
    }

    // A new box (or a lost one recreated): the engagement's pinned image wins over everything else.
    const issued =
      input.issued && !(await getBox(db, input.issued.sandboxId))
        ? input.issued
        : await issueSandbox(db, input, now);
    if (typeof issued === "string") throw new SandboxRefusal("workspace_not_found", issued);
    const pinned =
      (await pinnedImageOf(db, input.engagementId)) ??
      (await pinImage(
        db,
        input.engagementId,
        input.image ?? batonrc?.sandbox?.snapshot_name ?? this.options.defaultImage,
        input.image ? "request" : batonrc?.sandbox?.snapshot_name ? "snapshot_name" : "default",
        now.getTime(),
      ));
    const secrets = input.repository
      ? ((await db.all(
          "SELECT s.id, s.name FROM secrets s JOIN repositories r ON r.id = s.repository_id WHERE r.workspace_id = ? AND r.slug = ? ORDER BY s.name",
          [input.workspaceId, input.repository],
        )) as { id: string; name: string }[])
      : [];
    // The repository's sandbox.env as activation would give it (the service's record over .batonrc.json): a
    // workspace without the rollout gets it only here, at creation.
    const configured = input.repository
      ? ((await db.all(
          "SELECT v.name, v.value FROM sandbox_env v JOIN repositories r ON r.id = v.repository_id WHERE r.workspace_id = ? AND r.slug = ?",
          [input.workspaceId, input.repository],
        )) as { name: string; value: string }[])
      : [];
    const sandboxEnv = Object.fromEntries(
      mergeSandboxEnv({
        configured,
        batonrc: batonrc?.sandbox?.env ?? {},
        secretNames: secrets.map((s) => s.name),
      }).map(({ name, value }) => [name, value]),
    );
    const codehost = input.repository
      ? await this.options.codehostPush?.(input.workspaceId, input.repository)
      : undefined;
    let env: Record<string, string> = {};
    const boxEnv = (reach: CreatedBox["reach"]) => {
      env = buildBoxEnvironment({
        reach,
        turnToken: issued.turnToken,
        lease: issued.lease,
        sandboxEnv,
        secrets,
        codehost,
      });
      return env;
    };
    const checkouts = [
      ...(input.checkout && input.repository
        ? [{ hostPath: input.checkout, repository: input.repository }]
        : []),
      ...Object.entries(input.extraCheckouts ?? {}).map(([repository, hostPath]) => ({
        hostPath,
        repository,
      })),
    ];
    const name = `baton-sandbox-${issued.sandboxId.replace(/^sbx_/, "").slice(0, 24)}`;
    let created: CreatedBox | undefined;
    // A ready box of the pinned image from the pool when there is one; it is this sandbox's from now on, and
    // only now receives its checkouts and variables (credentials among them). A miss creates a box.
    const pooled = this.pool?.take(pinned.image);
    if (pooled) {
      try {
        created = await driver.handOut(pooled.ref, { name, env: boxEnv, checkouts });
      } catch (error) {
        this.options.logger.warn(
          { err: (error as Error).message, sandboxId: issued.sandboxId },
          "a pooled box could not be handed out; creating one",
        );
        await driver.remove(pooled.ref).catch(() => undefined);
      }
    }
    try {
      created ??= await driver.create({
        name,
        image: pinned.image,
        env: boxEnv,
        checkouts,
        labels: { "baton.workspace": input.workspaceId, "baton.engagement": input.engagementId },
      });
    } catch (error) {
      this.options.logger.error(
        { err: (error as Error).message, sandboxId: issued.sandboxId },
        "box creation failed",
      );
      throw new BatonError(
        "internal",
        `the ${driver.name} driver could not create the box: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    const nowMs = this.nowMs();
    await db.transaction(
      async () =>
        await insertBox(db, {
          sandboxId: issued.sandboxId,
          workspaceId: input.workspaceId,
          engagementId: input.engagementId,
          driver: driver.name,
          boxRef: created.ref,
          image: pinned.image,
          repository: input.repository ?? null,
          state: "running",
          lastActivityAtMs: nowMs,
          stateChangedAtMs: nowMs,
          createdAtMs: nowMs,
          reach: created.reach as Record<string, string>,
          batonrc,
          ownerInstance: this.instance.id,
          ownerMachine: this.instance.machine,
          ownerLeaseUntilMs: nowMs + this.ownerLeaseMs,
        }),
    );
    this.credentials.set(issued.sandboxId, { turnToken: issued.turnToken, lease: issued.lease });
    logSandboxCreated(this.options.logger, {
      ...input,
      sandboxId: issued.sandboxId,
      driver: driver.name,
      image: pinned.image,
    });
    if (batonrc?.pre_clone?.length) await this.runPreClone(issued.sandboxId, created.ref, batonrc.pre_clone);
    return {
      issued,
      box: await this.view((await getBox(db, issued.sandboxId))!),
      env,
      reused: false,
      reach: created.reach,
    };
  }

  private async runPreClone(sandboxId: string, ref: string, commands: readonly string[]): Promise<void> {
    const sanitiser = createSanitiser();
    const records: PreCloneRecord[] = [];
    for (const command of commands) {
      const started = performance.now();
      const result = await this.options.driver.exec(ref, ["bash", "-c", command], {
        timeoutMs: this.options.preCloneTimeoutMs ?? PRE_CLONE_TIMEOUT_MS,
      });
      const output = sanitiser.sanitise(`${result.stdout}${result.stderr}`).text;
      records.push({
        command: sanitiser.sanitise(command).text,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        durationMs: Math.round(performance.now() - started),
        output: output.length > PRE_CLONE_OUTPUT_CHARS ? `…${output.slice(-PRE_CLONE_OUTPUT_CHARS)}` : output,
      });
      if (result.exitCode !== 0) break; // later commands may depend on this one
    }
    await setPreClone(this.options.db, sandboxId, records);
  }

  /** Runs a command in an owned box: activity, and a stopped or archived box starts again first. */
  async exec(
    sandboxId: string,
    owner: Owner,
    argv: readonly string[],
    options: ExecOptions,
    relayed = false,
  ): Promise<ExecResult> {
    const place = await this.placeOf(await this.owned(sandboxId, owner), relayed);
    if (place !== "here") {
      // The owner runs it under its own time limit; the answer may take that long, and the relay's margin more.
      const { signal: _local, ...wire } = options;
      const result = await this.ask(
        place,
        BOX_REQUESTS.exec,
        { sandboxId, owner, argv, options: wire },
        {
          timeoutMs: options.timeoutMs + RELAY_MARGIN_MS,
        },
      );
      return ExecResultSchema.parse(result);
    }
    const { ref, env } = await this.readyToRun(sandboxId, owner, options.env);
    return this.options.driver.exec(ref, argv, { ...options, env });
  }

  /**
   * Where the driver work on a box runs: "here" (a box no live instance holds is taken over first), or the id of
   * the live instance that owns it. A request relayed from another instance is done here or refused, never relayed
   * again; a box whose owner stopped renewing its hold waits for an instance on its machine to adopt it.
   */
  private async placeOf(found: BoxRow, relayed: boolean): Promise<"here" | string> {
    let row = found;
    if (this.ownership(row) === "adoptable") {
      if (await this.takeOver(row)) return "here";
      row = (await getBox(this.options.db, row.sandboxId)) ?? row;
    }
    if (this.ownership(row) === "mine") return "here";
    const ownerId = row.ownerInstance ?? "unknown";
    const machine = row.ownerMachine ?? "its machine";
    if (relayed || !this.options.relay)
      throw new SandboxRefusal(
        "owner_unreachable",
        `sandbox ${row.sandboxId} is run by instance ${ownerId}, not this one; ask that instance`,
      );
    if ((row.ownerLeaseUntilMs ?? 0) < this.nowMs())
      throw new SandboxRefusal(
        "owner_unreachable",
        `instance ${ownerId}, which runs sandbox ${row.sandboxId} on ${machine}, stopped renewing its hold on it: an instance on ${machine} adopts the box at its next sweep (within a minute); retry then`,
      );
    return ownerId;
  }

  /** Asks the box's owning instance; its refusals come back as this manager's own. */
  private async ask(
    ownerId: string,
    kind: BoxRequestKind,
    body: unknown,
    options: { timeoutMs: number },
  ): Promise<unknown> {
    try {
      return await this.options.relay!.ask(ownerId, kind, body, options);
    } catch (error) {
      if (error instanceof InstanceUnreachable) throw new SandboxRefusal("owner_unreachable", error.message);
      if (
        error instanceof RemoteRefusal &&
        error.remote.name === "SandboxRefusal" &&
        isRefusalReason(error.remote.reason)
      )
        throw new SandboxRefusal(error.remote.reason, error.message);
      throw error;
    }
  }

  /** Starts a long-lived command in the box (a coding agent) with the box's current credentials. */
  async spawn(
    sandboxId: string,
    owner: Owner,
    argv: readonly string[],
    options: SpawnOptions,
  ): Promise<BoxProcess> {
    const { ref, env } = await this.readyToRun(sandboxId, owner, options.env);
    return this.options.driver.spawn(ref, argv, { ...options, env });
  }

  /**
   * An owned, reusable box recorded as active (started again when stopped or archived), and a command's variables:
   * the box's current credentials under the caller's. An operator credential among them never enters the box.
   */
  private async readyToRun(
    sandboxId: string,
    owner: Owner,
    env: Record<string, string> | undefined,
  ): Promise<{ ref: string; env: Record<string, string> }> {
    const row = await this.owned(sandboxId, owner);
    if (!row.boxRef || !isReusable(row.state))
      throw new SandboxRefusal(
        "sandbox_not_found",
        `sandbox ${sandboxId} is ${row.state}; provision a new one`,
      );
    await this.event(sandboxId, "activity");
    const credentials = this.credentials.get(sandboxId);
    return {
      ref: row.boxRef,
      env: withoutOperatorCredentials({
        ...(credentials ? credentialEnvironment(row.reach, credentials.turnToken, credentials.lease) : {}),
        ...env,
      }),
    };
  }

  /** Copies `pathInBox` out of the box into `hostDir` on this instance's machine, whichever instance runs the box. */
  async copyOut(sandboxId: string, owner: Owner, pathInBox: string, hostDir: string): Promise<void> {
    const row = await this.owned(sandboxId, owner);
    const place = await this.placeOf(row, false);
    if (place === "here") {
      await this.options.driver.copyOut(this.liveRef(row), pathInBox, hostDir);
      return;
    }
    await extractArchive(await this.copyOutArchive(sandboxId, owner, pathInBox), hostDir);
  }

  /** `pathInBox` as a tar archive (the form a copy-out travels in between instances and over HTTP). */
  async copyOutArchive(sandboxId: string, owner: Owner, pathInBox: string, relayed = false): Promise<Buffer> {
    const row = await this.owned(sandboxId, owner);
    const place = await this.placeOf(row, relayed);
    if (place !== "here") {
      const answer = await this.ask(
        place,
        BOX_REQUESTS.copyOut,
        { sandboxId, owner, pathInBox },
        {
          timeoutMs: COPY_OUT_TIMEOUT_MS,
        },
      );
      return Buffer.from(String(answer), "base64");
    }
    const ref = this.liveRef(row);
    try {
      return await archiveFolder((dir) => this.options.driver.copyOut(ref, pathInBox, dir));
    } catch (error) {
      // The driver's own message names host folders: the admin hears what to fix instead (the log has the rest).
      this.options.logger.warn({ sandboxId, pathInBox, err: (error as Error).message }, "copy-out failed");
      throw new SandboxRefusal(
        "sandbox_not_found",
        `${pathInBox} cannot be copied out of sandbox ${sandboxId}: it is not there, or not under the box's home or /tmp`,
      );
    }
  }

  private liveRef(row: BoxRow): string {
    if (!row.boxRef || row.state === "deleted")
      throw new SandboxRefusal("sandbox_not_found", "the box is gone");
    return row.boxRef;
  }

  /** An operation, command or lease use (no box change needed: a box in use is running). */
  async recordActivity(sandboxId: string): Promise<void> {
    await touchActivity(this.options.db, sandboxId, this.nowMs());
  }

  /**
   * Applies an event's transition to the store and the box. Serialised with sweeps and other events; `unless`
   * is asked just before, and a true answer leaves the box as it is.
   */
  event(
    sandboxId: string,
    event: LifecycleEvent,
    unless?: () => Promise<boolean>,
  ): Promise<Transition | null> {
    return this.serialise(async () => {
      const row = await getBox(this.options.db, sandboxId);
      if (!row || (await unless?.())) return null;
      const transition = decideOnEvent(row, event);
      if (!transition) {
        if (event === "activity") await this.recordActivity(sandboxId);
        return null;
      }
      await this.apply(row, transition);
      return transition;
    });
  }

  async finishWork(sandboxId: string, owner: Owner, relayed = false) {
    return this.ownerEvent(sandboxId, owner, "work_finished", relayed);
  }

  async cancel(sandboxId: string, owner: Owner, relayed = false) {
    return this.ownerEvent(sandboxId, owner, "cancelled", relayed);
  }

  /** An admin's lifecycle event, applied by the instance whose driver runs the box. */
  private async ownerEvent(
    sandboxId: string,
    owner: Owner,
    event: "work_finished" | "cancelled" | "deleted",
    relayed: boolean,
  ): Promise<Transition | null> {
    const place = await this.placeOf(await this.owned(sandboxId, owner), relayed);
    if (place === "here") return this.event(sandboxId, event);
    const answer = await this.ask(
      place,
      BOX_REQUESTS.event,
      { sandboxId, owner, event },
      {
        timeoutMs: EVENT_TIMEOUT_MS,
      },
    );
    return answer as Transition | null;
  }

  /**
   * The task engine's word that a task stopped working (`work_finished`) or was stopped (`cancelled`), applied only
   * if `stillIdle()` holds when its turn comes: a follow-up that began meanwhile keeps the box running.
   */
  async settle(
    sandboxId: string,
    owner: Owner,
    event: "work_finished" | "cancelled",
    stillIdle: () => Promise<boolean>,
  ) {
    await this.owned(sandboxId, owner);
    return this.event(sandboxId, event, async () => !(await stillIdle()));
  }

  async remove(sandboxId: string, owner: Owner, relayed = false) {
    return this.ownerEvent(sandboxId, owner, "deleted", relayed);
  }

  /**
   * Adopts the boxes of this machine's dead instances (the previous run's, after a restart): records as `lost`
   * every such box the driver no longer has (removed outside Baton, or a machine restart took its network), then
   * lets the driver remove the boxes the store no longer lists (deleted, or made by a run that died before
   * recording them; the driver looks only at its own state folder's boxes). Boxes a live instance holds, and
   * other machines' boxes, are left alone. Run once the driver is up, so the admin API never shows a box that is
   * gone, and no sweep works on one.
   */
  reconcile(): Promise<{ sandboxId: string; transition: Transition }[]> {
    return this.serialise(async () => {
      const { done, keep } = await this.adoptUnheld();
      for (const ref of await this.options.driver.reap(keep))
        this.options.logger.info({ ref }, "removed a sandbox box the store no longer lists");
      return done;
    });
  }

  /** Adoption alone, without reaping: the sweep runs it, so a box whose owner died meanwhile is not orphaned. */
  adopt(): Promise<{ sandboxId: string; transition: Transition }[]> {
    return this.serialise(async () => (await this.adoptUnheld()).done);
  }

  private async adoptUnheld() {
    const done: { sandboxId: string; transition: Transition }[] = [];
    const keep = new Set<string>();
    for (const row of await listBoxes(this.options.db, { live: true })) {
      const ownership = this.ownership(row);
      if (ownership === "held_elsewhere" || ownership === "other_machine") {
        if (row.boxRef) keep.add(row.boxRef);
        continue;
      }
      if (ownership === "adoptable") {
        if (!(await this.takeOver(row))) {
          if (row.boxRef) keep.add(row.boxRef);
          continue;
        }
        this.options.logger.info(
          { sandboxId: row.sandboxId, previousOwner: row.ownerInstance },
          "adopted a sandbox box of an instance that is gone",
        );
      }
      if (
        row.boxRef &&
        row.driver === this.options.driver.name &&
        (await this.options.driver.exists(row.boxRef))
      ) {
        keep.add(row.boxRef);
        continue;
      }
      const transition = decideOnEvent(row, "lost");
      if (!transition) continue;
      await applyTransition(this.options.db, row.sandboxId, transition, this.nowMs());
      this.credentials.delete(row.sandboxId);
      logSandboxTransition(this.options.logger, row, transition);
      done.push({ sandboxId: row.sandboxId, transition });
    }
    return { done, keep };
  }

  /** Stops idle boxes and archives stopped ones (every minute by default). */
  sweep(): Promise<{ sandboxId: string; transition: Transition }[]> {
    return this.serialise(() => this.sweepWith(decideOnSweep));
  }

  /** The daily cleanup: 30 days inactive → eligible for deletion; eligible → deleted (box removed). */
  cleanup(): Promise<{ sandboxId: string; transition: Transition }[]> {
    return this.serialise(() => this.sweepWith(decideOnCleanup));
  }

  private async sweepWith(decide: typeof decideOnSweep) {
    const done: { sandboxId: string; transition: Transition }[] = [];
    const nowMs = this.nowMs();
    for (const row of await listBoxes(this.options.db, { live: true })) {
      // Only this instance's boxes: another's driver runs (and another's sweeps retire) the rest.
      if (this.ownership(row) !== "mine") continue;
      const transition = decide(row, nowMs);
      if (!transition) continue;
      try {
        await this.apply(row, transition);
        done.push({ sandboxId: row.sandboxId, transition });
      } catch (error) {
        this.options.logger.error(
          { err: (error as Error).message, sandboxId: row.sandboxId },
          "sweep step failed",
        );
      }
    }
    return done;
  }

  private async apply(row: BoxRow, transition: Transition): Promise<void> {
    const { driver } = this.options;
    if (row.boxRef) {
      if (transition.to === "stopped" || transition.to === "archived") await driver.stop(row.boxRef);
      if (transition.to === "running") await driver.start(row.boxRef);
      if (transition.to === "deleted") await driver.remove(row.boxRef);
    }
    if (transition.to === "deleted") this.credentials.delete(row.sandboxId);
    await applyTransition(this.options.db, row.sandboxId, transition, this.nowMs());
    logSandboxTransition(this.options.logger, row, transition);
  }

  private serialise<T>(work: () => Promise<T>): Promise<T> {
    const next = this.busy.then(work, work);
    this.busy = next.catch(() => undefined);
    return next;
  }

  async list(workspaceId?: string): Promise<SandboxView[]> {
    const views: SandboxView[] = [];
    for (const row of await listBoxes(this.options.db, workspaceId ? { workspaceId } : {}))
      views.push(await this.view(row));
    return views;
  }

  async show(sandboxId: string): Promise<SandboxView | undefined> {
    const row = await getBox(this.options.db, sandboxId);
    return row && (await this.view(row));
  }

  /**
   * Runs the sweep and the daily cleanup once now, then on their intervals (timers do not keep the process alive).
   * Running both at start means a service restarted more often than daily still cleans up.
   */
  startTimers(intervals = { sweepMs: SWEEP_INTERVAL_MS, cleanupMs: CLEANUP_INTERVAL_MS }): void {
    const run = (what: () => Promise<unknown>) => () => {
      void what().catch((error: unknown) =>
        this.options.logger.error({ err: (error as Error).message }, "sandbox sweep failed"),
      );
    };
    run(() => this.sweep())();
    run(() => this.cleanup())();
    this.timers.push(
      setInterval(
        run(async () => {
          await this.adopt();
          await this.sweep();
        }),
        intervals.sweepMs,
      ).unref(),
    );
    this.timers.push(
      setInterval(
        run(() => this.renewOwnership()),
        Math.max(1, Math.floor(this.ownerLeaseMs / 3)),
      ).unref(),
    );
    this.timers.push(
      setInterval(
        run(() => this.cleanup()),
        intervals.cleanupMs,
      ).unref(),
    );
  }

  /** A graceful stop of the service: the boxes keep running, free at once for the next start to adopt. */
  async detach(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.busy;
    // Pooled boxes are no task's: a deploy keeps the tasks' boxes, never these.
    await this.pool?.drain();
    await releaseBoxOwnership(this.options.db, this.instance).catch((error: unknown) =>
      this.options.logger.warn({ err: String(error) }, "could not release this instance's sandbox boxes"),
    );
    await this.options.driver.detach();
  }

  /** Removes every box and the driver's resources (tests, and a service that must leave nothing behind). */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.busy;
    await this.pool?.drain();
    await this.options.driver.close();
  }
}
