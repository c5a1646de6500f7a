// The tokens page itself: GET shows the list and the create form; POST creates a token and shows it, in that one
// answer only. The form carried the new token's id, so sending it again (a reload of that answer) creates
// nothing and redirects to the list.
import type { Context } from "hono";
import { AUDIT_EVENTS, logAuditEvent } from "../../../../audit/events.js";
import { createOwnToken, listOwnTokens } from "../../../domain/auth/own-tokens.js";
import { newId } from "../../../primitives/tokens.js";
import type { PagesEnv } from "../env.js";
import type { TokensPageApp, TokensPageContext } from "./app.js";
import { CreateTokenFormSchema, formFields, readNotice } from "./forms.js";
import { renderTokensPage, type TokensPageView } from "./render-page.js";
import { NOTICES, type Notice, TOKENS_PAGE_PATHS, TOKENS_PAGE_ROUTES } from "./wire.js";

export function addTokenRoutes(app: TokensPageApp, context: TokensPageContext): void {
  const { deps, formGuards } = context;
  app.get(TOKENS_PAGE_ROUTES.list, (c) =>
    showTokensPage(c, context, { notice: readNotice(c.req.query("notice")) }),
  );

  app.post(TOKENS_PAGE_ROUTES.list, ...formGuards, async (c) => {
    const fields = formFields(await c.req.parseBody());
    const parsed = CreateTokenFormSchema.safeParse(fields);
    if (!parsed.success) {
      const error = parsed.error.issues[0]!.message;
      const form = {
        formId: fields.formId ?? newId("pat"),
        name: fields.name,
        lifetimeDays: fields.lifetimeDays,
        error,
      };
      return showTokensPage(c, context, { form }, 400);
    }
    const user = c.get("webUser");
    const { formId, ...input } = parsed.data;
    const created = await createOwnToken(deps.db, user, { id: formId, ...input }, deps.now());
    if (created === "already-created") return redirectToList(c, NOTICES.alreadyCreated);
    logAuditEvent(deps.logger, AUDIT_EVENTS.tokenCreated, {
      requestId: c.get("requestId"),
      actor: user.email,
      tokenId: created.id,
      owner: user.email,
      name: created.name,
      expiresAt: created.expiresAt,
    });
    return await showTokensPage(c, context, { created });
  });
}

async function showTokensPage(
  c: Context<PagesEnv>,
  { deps, apps }: TokensPageContext,
  extra: Partial<TokensPageView> = {},
  status: 200 | 400 = 200,
) {
  const user = c.get("webUser");
  const view: TokensPageView = {
    user,
    csrfToken: c.get("csrfToken"),
    tokens: await listOwnTokens(deps.db, user, deps.now().getTime()),
    apps: await apps.list(user.id),
    form: { formId: newId("pat") },
    ...extra,
  };
  return c.html(renderTokensPage(view), status);
}

/** POST-redirect-GET back to the list, with a notice of what happened. */
export const redirectToList = (c: Context<PagesEnv>, notice: Notice) =>
  c.redirect(`${TOKENS_PAGE_PATHS.list}?notice=${notice}`, 303);
