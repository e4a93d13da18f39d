'use strict'

/**
 * Join items as an English list: "a", "a and b", "a, b and c".
 * An empty list gives "".
 * @param {string[]} items
 * @returns {string}
 */
function formatList (items) {
  if (items.length === 0) return ''
  if (items.length === 1) return String(items[0])
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/**
 * "1 result", "2 results".
 * @param {number} n
 */
function countResults (n) {
  return `${n} result${n === 1 ? '' : 's'}`
}

module.exports = { formatList, countResults }
