// `baton logout` (reference rule 9): revoke the token, or end the whole browser sign-in, with
// DELETE /v1/me/token, then delete the config file. When the service cannot be reached (or refuses), the file is
// deleted all the same and the client warns that the sign-in or token may still work: exit 0, since this
// computer is signed out either way.
import type { Command } from "commander";
import { createApiClient } from "../../client/api-client.js";
import { resolveApiUrl } from "../../client/api-url.js";
import { deleteConfig, locateConfig, readSavedConfig } from "../../client/config.js";
import type { SavedConfig } from "../../client/config-schema.js";
import { tokenRenewer } from "../../client/session.js";
import { isBatonError } from "../../errors.js";
import type { CommandContext } from "../context.js";
import { writeLine } from "../io.js";

export function declare(command: Command, context: CommandContext): void {
  command.summary("sign out").action(
    context.action(async () => {
      const { io } = context;
      const location = locateConfig(io.env);
      let saved: SavedConfig | null;
      try {
        saved = readSavedConfig(location);
      } catch (error) {
        // An unreadable file still goes: whatever token it held may still work, so say so.
        deleteConfig(location);
        writeLine(
          io.stderr,
          `warning: ${isBatonError(error) ? error.message : String(error)}. It is deleted; a token it held may still work until it expires: revoke it on the access-tokens page.`,
        );
        return undefined;
      }
      if (saved === null) {
        writeLine(io.stdout, "Not signed in; nothing to do.");
        return undefined;
      }
      const what = saved.kind === "signin" ? "the sign-in" : "the access token";
      const apiUrl = resolveApiUrl({ env: io.env, saved: saved.apiUrl });
      // A browser sign-in's access token may be past its hour: renewed once on 401, so the sign-in (and its
      // refresh token) really ends rather than living on unseen.
      const api = createApiClient({
        apiUrl,
        token: saved.token,
        log: context.log,
        ...tokenRenewer(saved, location, apiUrl),
      });
      let failure: string | undefined;
      try {
        await api.revokeToken();
      } catch (error) {
        // An already revoked or expired token (401), or a sign-in already ended, is as good as signed out.
        if (!(isBatonError(error) && (error.code === "unauthorised" || error.code === "not_logged_in"))) {
          failure = isBatonError(error) ? error.message : String(error);
        }
      } finally {
        api.close();
      }
      deleteConfig(location);
      if (failure !== undefined) {
        writeLine(
          io.stderr,
          `warning: ${failure}. ${location.file} is deleted, but ${what} may still work until it expires: revoke it on the access-tokens page.`,
        );
      }
      writeLine(
        io.stdout,
        `Signed out: ${what} is ${failure === undefined ? "ended" : "forgotten here"} and ${location.file} is deleted.`,
      );
      return undefined;
    }),
  );
}
