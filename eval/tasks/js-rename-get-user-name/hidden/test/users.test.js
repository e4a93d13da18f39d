'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { getDisplayName, sortUsers } = require('../src/users')

test('getDisplayName prefers the full name', () => {
  assert.equal(getDisplayName({ first: 'Ada', last: 'Lovelace', nickname: 'ada' }), 'Ada Lovelace')
})

test('getDisplayName falls back to nickname, then e-mail', () => {
  assert.equal(getDisplayName({ first: 'Ada', nickname: 'countess' }), 'countess')
  assert.equal(getDisplayName({ email: 'grace@navy.mil' }), 'grace')
  assert.equal(getDisplayName({}), 'unknown')
})

test('sortUsers', () => {
  const names = sortUsers([{ nickname: 'bob' }, { nickname: 'Alice' }]).map(getDisplayName)
  assert.deepEqual(names, ['Alice', 'bob'])
})
