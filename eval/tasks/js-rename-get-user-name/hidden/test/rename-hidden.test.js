'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const users = require('../src/users')
const pkg = require('../src')

test('new name is exported everywhere', () => {
  assert.equal(typeof users.getDisplayName, 'function')
  assert.equal(pkg.getDisplayName, users.getDisplayName)
})

test('old name is gone', () => {
  assert.equal(users.getUserName, undefined)
  assert.equal(pkg.getUserName, undefined)
})

test('behaviour unchanged', () => {
  assert.equal(users.getDisplayName({ first: ' Ada ', last: 'L' }), 'Ada L')
  assert.equal(users.getDisplayName({ last: 'Solo' }), 'Solo')
  assert.equal(pkg.welcomeBanner({ email: 'z@q' }, new Date(2024, 0, 1, 20)), 'Good evening, z!')
})
