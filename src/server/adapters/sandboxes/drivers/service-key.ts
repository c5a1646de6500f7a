// The name a service's state folder gives its sandbox resources (pure): five hex digits, so that
// `baton-sbx-<key>` stays within Linux's 15-character interface names, and the same folder always gives the same
// key, so a restarted service finds what the previous run made.
import { createHash } from "node:crypto";
import { resolve } from "node:path";

export function serviceKeyOf(serviceDir: string): string {
  return createHash("sha256").update(resolve(serviceDir)).digest("hex").slice(0, 5);
}
