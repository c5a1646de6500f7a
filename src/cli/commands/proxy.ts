// `baton proxy` (the egress proxy), `baton proxy check`, `baton proxy ca` and `baton proxy rotate-ca`.
// Flags and printing only; the proxy itself loads lazily from src/proxy.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { wholeNumberIn } from "../flags.js";

// `proxy` and its subcommands share --json, --config and --state-dir; commander gives a flag written after the
// subcommand to the parent, so each subcommand reads its options with the parent's merged in (optsWithGlobals).
export function declare(proxy: Command, context: CommandContext): void {
  proxy
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port to listen on; 0 picks a free one", wholeNumberIn(0, 65535), 0)
    .option(
      "--serve-url <url>",
      "the admin listener of the baton serve the proxy asks about leases and secrets (its adminUrl)",
    )
    .option("--config <file>", "operator rules: allow/deny (CIDR, hosts, ports, methods), DNS, time-outs")
    .option("--state-dir <dir>", "where the proxy keeps its CA (default: $XDG_DATA_HOME/baton/proxy)")
    .option("--audit-file <file>", "append audit lines to this file instead of stderr")
    .option(
      "--allow-smtp",
      'open the outbound mail ports 25, 465 and 587 (closed by default; "allowSmtp" in --config)',
    )
    .option("--json", "print the listening line as JSON")
    .addHelpText(
      "after",
      "\nStop with SIGTERM or Ctrl-C (open tunnels get up to 10 s). SIGHUP reloads the CA after rotate-ca.",
    )
    .action(
      context.action(async (options) => {
        const { runProxy } = await import("./proxy-run.js");
        return runProxy(options, context.io);
      }),
    );
  proxy
    .command("check")
    .description(
      "print the decision the policy makes for a URL or host:port (resolves names, never connects)",
    )
    .argument("<target>", "a URL (http://, https://) or host:port")
    .option("--config <file>", "the operator config to test")
    .option("--method <method>", "the HTTP method, for rules that name methods")
    .option("--allow-smtp", "decide as `baton proxy --allow-smtp` would: mail ports 25, 465 and 587 open")
    .option("--json", "print the decision as JSON")
    .action(
      context.action(async (target: string, _options, command: Command) => {
        const { runProxyCheck } = await import("./proxy-run.js");
        return runProxyCheck(target, command.optsWithGlobals(), context.io);
      }),
    );
  proxy
    .command("ca")
    .description("print the proxy's CA certificate (PEM), which sandboxes trust for the placeholder path")
    .option("--state-dir <dir>", "the proxy's state folder (default: $XDG_DATA_HOME/baton/proxy)")
    .option("--from <proxy-url>", "ask a running proxy instead (e.g. $BATON_PROXY_URL inside a sandbox)")
    .option("--json", "print {certificate, subject, notAfter, sha256} as JSON")
    .action(
      context.action(async (_options, command: Command) => {
        const { runProxyCa } = await import("./proxy-run.js");
        return runProxyCa(command.optsWithGlobals(), context.io);
      }),
    );
  proxy
    .command("rotate-ca")
    .description(
      "replace the proxy's CA; then SIGHUP running proxies and rerun baton env activate in sandboxes",
    )
    .option("--state-dir <dir>", "the proxy's state folder (default: $XDG_DATA_HOME/baton/proxy)")
    .option("--json", "print the new certificate's details as JSON")
    .action(
      context.action(async (_options, command: Command) => {
        const { runProxyRotateCa } = await import("./proxy-run.js");
        return runProxyRotateCa(command.optsWithGlobals(), context.io);
      }),
    );
}
