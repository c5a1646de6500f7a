// Arguments that look like an access token (`btn_…`, or a bearer form `Bearer <token>`): a token typed on the
// command line must never be echoed back in a message, suggested as a prompt, or sent as one. Pure: text in,
// a verdict or the text with every token masked out.

/** A personal access token (`btn_` and at least 8 token characters: shorter is a word like `btn_ok`). */
const PERSONAL_TOKEN = /btn_[A-Za-z0-9_-]{8,}/g;
/** A bearer form: `Bearer <token>` in one argument (a token is 12+ characters of its alphabet, no spaces). */
const BEARER = /\b([Bb]earer)([\s:=]+)[A-Za-z0-9._~+/-]{12,}=*/g;
/** `Bearer` as a word of its own: the argument after it is the token when it looks like one. */
const BEARER_WORD = /^(authorization:\s*)?bearer:?$/i;
const TOKEN_WORD = /^[A-Za-z0-9._~+/-]{8,}=*$/;

export const MASKED_TOKEN = "btn_…";

/** Whether any argument holds an access token, or is `Bearer` followed by another argument. */
export function holdsToken(args: readonly string[]): boolean {
  return args.some(
    (arg, i) =>
      new RegExp(PERSONAL_TOKEN.source).test(arg) ||
      new RegExp(BEARER.source).test(arg) ||
      (BEARER_WORD.test(arg) && TOKEN_WORD.test(args[i + 1] ?? "")),
  );
}

/** The text with each token-looking part replaced by `btn_…` (a bearer form keeps its word: `Bearer …`). */
export function maskTokens(text: string): string {
  return text
    .replace(BEARER, (_whole, word: string, separator: string) => `${word}${separator}…`)
    .replace(PERSONAL_TOKEN, MASKED_TOKEN);
}

/** The usage error for a token given to `baton login` as an argument: it names the right forms, never the value. */
export const LOGIN_TOKEN_ARGUMENT =
  "baton login takes the token on its standard input, never as an argument (the argument was not used, shown " +
  "or saved): run baton login --token and paste the token when asked, or pipe it in: " +
  "printf '%s' \"$TOKEN\" | baton login -w <workspace-id>. A token typed on a command line may be in your " +
  "shell history: if it was a real one, revoke it on the access-tokens page and make another";

/** The usage error for any other command given a token-looking argument. */
export const TOKEN_ARGUMENT =
  "an argument looks like an access token (btn_… or Bearer …); it was not used, shown or sent. To sign in " +
  "with a token, run baton login --token and paste it when asked. To start a task whose prompt really holds " +
  'it, run baton start "<prompt>"';
