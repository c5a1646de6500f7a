// execa, loaded on first use: composing the service (and describing it for the OpenAPI document) runs no
// process, so the module graph stays free of it until a turn or the code host needs one.
import type { execa as Execa } from "execa";

let loaded: Promise<typeof Execa> | undefined;

export function loadExeca(): Promise<typeof Execa> {
  loaded ??= import("execa").then((module) => module.execa);
  return loaded;
}
