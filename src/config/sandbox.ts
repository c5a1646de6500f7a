// Where things live inside a sandbox, read from the environment once per command.
import { homedir } from "node:os";
import { join } from "node:path";

export interface SandboxPaths {
  home: string;
  /** `$HOME/.baton` */
  batonDir: string;
  environmentFile: string;
  dockerfileEnvironmentFile: string;
  handoffsDir: string;
  stateDir: string;
  /** Checkouts live at `<checkoutRoot>/<owner>/<name>` unless a command is given `--checkout`. */
  checkoutRoot: string;
}

export function resolveSandboxPaths(env: NodeJS.ProcessEnv): SandboxPaths {
  const home = env.HOME && env.HOME.length > 0 ? env.HOME : homedir();
  const batonDir = join(home, ".baton");
  return {
    home,
    batonDir,
    environmentFile: join(batonDir, "environment.sh"),
    dockerfileEnvironmentFile: join(batonDir, "dockerfile-environment.sh"),
    handoffsDir: join(batonDir, "handoffs"),
    stateDir: join(batonDir, "state"),
    checkoutRoot:
      env.BATON_CHECKOUT_ROOT && env.BATON_CHECKOUT_ROOT.length > 0
        ? env.BATON_CHECKOUT_ROOT
        : join(home, "checkouts"),
  };
}

export function checkoutPathFor(paths: Pick<SandboxPaths, "checkoutRoot">, repository: string): string {
  const [owner, name] = repository.split("/") as [string, string];
  return join(paths.checkoutRoot, owner, name);
}

/** The sandbox's credentials for the operations transport (see DESIGN.md "Our operations transport"). */
export interface TransportSettings {
  opsUrl: string | undefined;
  turnToken: string | undefined;
  sandboxLease: string | undefined;
}

export function readTransportSettings(env: NodeJS.ProcessEnv): TransportSettings {
  return {
    opsUrl: env.BATON_OPS_URL || undefined,
    turnToken: env.BATON_TURN_TOKEN || undefined,
    sandboxLease: env.BATON_SANDBOX_LEASE || undefined,
  };
}
