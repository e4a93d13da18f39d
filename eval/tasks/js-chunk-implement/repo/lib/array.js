'use strict'

/**
 * Values of `items` without duplicates, in first-seen order.
 * @param {Array} items
 * @returns {Array}
 */
function unique (items) {
  return [...new Set(items)]
}

/**
 * Split `items` into `[matching, rest]` according to `predicate`.
 * @param {Array} items
 * @param {(item: any, index: number) => boolean} predicate
 * @returns {[Array, Array]}
 */
function partition (items, predicate) {
  const yes = []
  const no = []
  items.forEach((item, i) => (predicate(item, i) ? yes : no).push(item))
  return [yes, no]
}

/**
 * Split `items` into consecutive groups of `size` elements.
 *
 * - The last group holds the remaining elements and may be shorter.
 * - An empty array gives `[]`.
 * - `items` itself is not modified, and the groups are new arrays.
 * - `size` must be a positive integer; otherwise (0, negative, fractional,
 *   NaN, a non-number) throw a `RangeError`.
 *
 * @example
 * chunk([1, 2, 3, 4, 5], 2) // => [[1, 2], [3, 4], [5]]
 * chunk(['a', 'b'], 5)      // => [['a', 'b']]
 * chunk([], 3)              // => []
 *
 * @param {Array} items
 * @param {number} size
 * @returns {Array<Array>}
 */
function chunk (items, size) {
  throw new Error('not implemented')
}

/**
 * Pair up elements of `a` and `b`; stops at the shorter array.
 * @param {Array} a
 * @param {Array} b
 * @returns {Array<[any, any]>}
 */
function zip (a, b) {
  const n = Math.min(a.length, b.length)
  const out = []
  for (let i = 0; i < n; i++) out.push([a[i], b[i]])
  return out
}

module.exports = { unique, partition, chunk, zip }
