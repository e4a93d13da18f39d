'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { getUserName, sortUsers } = require('../src/users')

test('getUserName prefers the full name', () => {
  assert.equal(getUserName({ first: 'Ada', last: 'Lovelace', nickname: 'ada' }), 'Ada Lovelace')
})

test('getUserName falls back to nickname, then e-mail', () => {
  assert.equal(getUserName({ first: 'Ada', nickname: 'countess' }), 'countess')
  assert.equal(getUserName({ email: 'grace@navy.mil' }), 'grace')
  assert.equal(getUserName({}), 'unknown')
})

test('sortUsers', () => {
  const names = sortUsers([{ nickname: 'bob' }, { nickname: 'Alice' }]).map(getUserName)
  assert.deepEqual(names, ['Alice', 'bob'])
})
