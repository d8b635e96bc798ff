// A raw query's row under the names of the view it becomes: lower-case snake_case columns as
// camelCase keys (open_count → openCount), values as they are, in the row's order.

type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
export type CamelRow<R> = { [K in keyof R as K extends string ? Camel<K> : K]: R[K] };

export function camelRow<R extends object>(row: R): CamelRow<R> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v])) as CamelRow<R>;
}
