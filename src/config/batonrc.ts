// `.batonrc.json` at a checkout's root (reference section 2): `sandbox.snapshot_name` picks the image,
// `sandbox.env` holds non-secret plaintext configuration, `pre_clone` commands run when the sandbox is created;
// `post_clone` is accepted and recorded but never run by the service. Any other key is an error. Pure: text in,
// a parsed document or every problem (each naming its key) out.
import * as z from "zod";
import { SHELL_NAME_PATTERN } from "../envfile/overlay.js";
import {
  CA_BUNDLE_VARIABLES,
  NO_PROXY_VARIABLES,
  NODE_CA_VARIABLE,
  PROXY_URL_VARIABLES,
} from "../envfile/render-proxy-settings.js";
import { findSecretKinds } from "../evidence/looks-like-secret.js";
import { formatIssuePath } from "./zod-error.js";

export const BATONRC_FILE = ".batonrc.json";
/** A larger `.batonrc.json` is refused before parsing (the keys it may hold fit many times over). */
export const BATONRC_MAX_BYTES = 256 * 1024;

/** An image reference as Docker accepts it (`name[:tag][@digest]`), no spaces or shell characters. */
const IMAGE_REFERENCE =
  /^[a-z0-9][a-z0-9._/-]*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$/;

const CommandListSchema = z.array(z.string().min(1, "must not be empty").max(4096)).max(32);

export const BatonrcSchema = z
  .object({
    sandbox: z
      .object({
        snapshot_name: z
          .string()
          .regex(IMAGE_REFERENCE, "must be an image name such as `acme/agent-base:2024-06`")
          .max(255)
          .optional(),
        env: z
          .record(
            z
              .string()
              .regex(
                SHELL_NAME_PATTERN,
                "is not a shell variable name (letters, digits, _; not first a digit)",
              ),
            z.string().max(32 * 1024),
          )
          .optional(),
      })
      .strict()
      .optional(),
    pre_clone: CommandListSchema.optional(),
    post_clone: CommandListSchema.optional(),
  })
  .strict();
export type Batonrc = z.infer<typeof BatonrcSchema>;

/**
 * Names `sandbox.env` may not use: `sandbox.env` joins the activation overlay, so environment.sh would export
 * it in every new shell. A repository's file must not replace the transport's credentials and address
 * (`BATON_*`), the egress and trust settings, or what the shells' start-up reads (`HOME`, `BASH_ENV`, `ENV`).
 */
const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...PROXY_URL_VARIABLES,
  ...NO_PROXY_VARIABLES,
  ...CA_BUNDLE_VARIABLES,
  NODE_CA_VARIABLE,
  "HOME",
  "BASH_ENV",
  "ENV",
]);

export function isReservedSandboxEnvName(name: string): boolean {
  return name.startsWith("BATON_") || RESERVED_NAMES.has(name);
}

export interface BatonrcProblem {
  /** The key, e.g. `sandbox.env.API_TOKEN` or `pre_clone[1]`. */
  path: string;
  message: string;
}

export type BatonrcLint = { ok: true; config: Batonrc } | { ok: false; problems: BatonrcProblem[] };

/** Parses and lints a `.batonrc.json` text: every problem at once, each naming its key and rule, never a value. */
export function lintBatonrc(text: string): BatonrcLint {
  if (Buffer.byteLength(text, "utf8") > BATONRC_MAX_BYTES)
    return {
      ok: false,
      problems: [{ path: "(file)", message: `is larger than ${BATONRC_MAX_BYTES} bytes` }],
    };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // JSON.parse's message quotes the text near the fault, which may be a value: say only where it is.
    return {
      ok: false,
      problems: [{ path: "(file)", message: `is not JSON${whereJsonFails(text, error)}` }],
    };
  }
  const parsed = BatonrcSchema.safeParse(raw);
  const problems: BatonrcProblem[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys)
          problems.push({
            path: formatIssuePath([...issue.path, key]),
            message:
              "is not a .batonrc.json key (allowed: sandbox.snapshot_name, sandbox.env, pre_clone, post_clone)",
          });
      } else if (issue.code === "invalid_key") {
        const key = String(issue.path.at(-1) ?? "");
        problems.push({
          path: formatIssuePath(issue.path),
          message: `${JSON.stringify(key)} is not a shell variable name (letters, digits, _; not first a digit)`,
        });
      } else problems.push({ path: formatIssuePath(issue.path), message: issue.message });
    }
  }
  // The names and values of sandbox.env are checked even when another key is wrong, so one run shows every problem.
  for (const [name, value] of Object.entries(sandboxEnvOf(raw))) {
    if (isReservedSandboxEnvName(name))
      problems.push({
        path: `sandbox.env.${name}`,
        message:
          "is reserved: Baton sets it in every sandbox (BATON_*, the egress proxy and trust settings, HOME, BASH_ENV, ENV); pick another name",
      });
    const kinds = findSecretKinds(value);
    if (kinds.length > 0)
      problems.push({
        path: `sandbox.env.${name}`,
        message: `looks like a secret (${kinds.join(", ")}); sandbox.env is plaintext the agent reads: store it as a repository secret with approved hosts`,
      });
  }
  if (!parsed.success || problems.length > 0) return { ok: false, problems };
  return { ok: true, config: parsed.data };
}

/** The string entries of `sandbox.env` in whatever was parsed (other entries are the schema's to report). */
function sandboxEnvOf(raw: unknown): Record<string, string> {
  const sandbox =
    typeof raw === "object" && raw !== null ? (raw as { sandbox?: unknown }).sandbox : undefined;
  const env =
    typeof sandbox === "object" && sandbox !== null ? (sandbox as { env?: unknown }).env : undefined;
  if (typeof env !== "object" || env === null || Array.isArray(env)) return {};
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/** ` at line L, column C` from JSON.parse's position, or nothing when its message gives none. */
function whereJsonFails(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  const position = /\bposition (\d+)/.exec(message);
  if (!position && !/end of JSON input/.test(message)) return "";
  const offset = position ? Number(position[1]) : text.length;
  const before = text.slice(0, offset).split("\n");
  return ` at line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** One line per problem, for errors and `baton env test`. */
export function describeBatonrcProblems(problems: readonly BatonrcProblem[]): string {
  return problems.map((p) => `${BATONRC_FILE}: ${p.path}: ${p.message}`).join("\n");
}
