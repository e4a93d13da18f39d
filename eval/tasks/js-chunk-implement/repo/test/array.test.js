'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { unique, partition, zip } = require('..')

test('unique', () => {
  assert.deepEqual(unique([3, 1, 3, 2, 1]), [3, 1, 2])
})

test('partition', () => {
  assert.deepEqual(partition([1, 2, 3, 4], (x) => x % 2 === 0), [[2, 4], [1, 3]])
})

test('zip', () => {
  assert.deepEqual(zip([1, 2, 3], ['a', 'b']), [[1, 'a'], [2, 'b']])
})
