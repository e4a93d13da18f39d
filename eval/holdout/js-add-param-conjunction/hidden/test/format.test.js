'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { formatList, countResults, describeFilters } = require('../src')

test('formatList', () => {
  assert.equal(formatList([]), '')
  assert.equal(formatList(['red']), 'red')
  assert.equal(formatList(['red', 'blue']), 'red and blue')
  assert.equal(formatList(['red', 'blue', 'green']), 'red, blue and green')
})

test('countResults', () => {
  assert.equal(countResults(1), '1 result')
  assert.equal(countResults(0), '0 results')
})

test('describeFilters with colours', () => {
  assert.equal(
    describeFilters({ category: 'shoes', colors: ['red', 'blue'] }, 3),
    'Showing 3 results for shoes in red and blue'
  )
})
