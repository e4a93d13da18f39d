'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { chunk } = require('..')
const direct = require('../lib/array').chunk

test('examples from the doc comment', () => {
  assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])
  assert.deepEqual(chunk(['a', 'b'], 5), [['a', 'b']])
  assert.deepEqual(chunk([], 3), [])
})

test('exact multiples and size 1', () => {
  assert.deepEqual(chunk([1, 2, 3, 4], 2), [[1, 2], [3, 4]])
  assert.deepEqual(chunk([1, 2, 3], 1), [[1], [2], [3]])
  assert.deepEqual(chunk([1, 2, 3], 3), [[1, 2, 3]])
})

test('does not modify the input and returns new arrays', () => {
  const items = [1, 2, 3]
  const out = chunk(items, 5)
  assert.deepEqual(items, [1, 2, 3])
  assert.notEqual(out[0], items)
  out[0].push(99)
  assert.deepEqual(items, [1, 2, 3])
})

test('keeps holes of falsy values', () => {
  assert.deepEqual(chunk([0, null, undefined, false, ''], 2), [[0, null], [undefined, false], ['']])
})

test('invalid sizes throw RangeError', () => {
  for (const size of [0, -1, 1.5, NaN, Infinity, '2', undefined, null]) {
    assert.throws(() => chunk([1, 2, 3], size), RangeError, `size ${String(size)}`)
  }
})

test('exported from the package', () => {
  assert.equal(chunk, direct)
})
