export { LRUCache } from "./lru";
export { memoize } from "./memo";
export type { Memoized } from "./memo";
