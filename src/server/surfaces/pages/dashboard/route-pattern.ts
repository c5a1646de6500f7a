// A hono route pattern from one of wire.ts's path builders: the builders encode their ids (so `:name` would
// become `%3Aname`), so each parameter goes in as a placeholder that encoding leaves alone and comes out as
// `:name`. The paths stay defined once, in wire.ts.
export function routeOf<N extends string>(
  build: (...ids: string[]) => string,
  ...names: readonly N[]
): string {
  let path = build(...names.map((_, i) => `__param${i}__`));
  names.forEach((name, i) => {
    path = path.replace(`__param${i}__`, `:${name}`);
  });
  return path;
}

/** A path parameter of a routeOf pattern (hono cannot type a built pattern's names). */
export const paramOf = (c: { req: { param(name: string): string | undefined } }, name: string): string =>
  c.req.param(name) ?? "";
