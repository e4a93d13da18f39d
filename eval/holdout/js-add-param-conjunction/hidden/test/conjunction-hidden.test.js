'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { formatList, describeFilters } = require('../src')

test('conjunction parameter', () => {
  assert.equal(formatList(['a', 'b', 'c'], 'or'), 'a, b or c')
  assert.equal(formatList(['a', 'b'], 'or'), 'a or b')
  assert.equal(formatList(['a'], 'or'), 'a')
  assert.equal(formatList([], 'or'), '')
  assert.equal(formatList(['x', 'y'], 'and/or'), 'x and/or y')
})

test('default stays "and"', () => {
  assert.equal(formatList(['a', 'b', 'c']), 'a, b and c')
  assert.equal(formatList(['a', 'b'], undefined), 'a and b')
})

test('sizes are alternatives, colours are not', () => {
  assert.equal(
    describeFilters({ category: 'shoes', colors: ['red', 'blue', 'green'], sizes: ['41', '42', '43'] }, 12),
    'Showing 12 results for shoes in red, blue and green, size 41, 42 or 43'
  )
  assert.equal(describeFilters({ category: 'hats', sizes: ['S', 'M'] }, 1), 'Showing 1 result for hats, size S or M')
})
