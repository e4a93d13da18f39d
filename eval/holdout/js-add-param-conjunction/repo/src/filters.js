'use strict'
const { formatList, countResults } = require('./format')

/**
 * Describe the active filters.
 *  - `colors`: the product must have ALL of these colours;
 *  - `sizes`: the product may have ANY of these sizes.
 * @param {{category: string, colors?: string[], sizes?: string[]}} filters
 * @param {number} total number of results
 */
function describeFilters (filters, total) {
  let text = `Showing ${countResults(total)} for ${filters.category}`
  if (filters.colors && filters.colors.length) {
    text += ` in ${formatList(filters.colors)}`
  }
  if (filters.sizes && filters.sizes.length) {
    text += `, size ${formatList(filters.sizes)}`
  }
  return text
}

module.exports = { describeFilters }
