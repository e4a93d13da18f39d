'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const semver = require('..')

test('caret ranges on 1.x allow minor and patch updates', () => {
  assert.ok(semver.satisfies('1.2.3', '^1.2.3'))
  assert.ok(semver.satisfies('1.9.0', '^1.2.3'))
  assert.ok(!semver.satisfies('2.0.0', '^1.2.3'))
})

test('caret ranges on 0.x allow only patch updates', () => {
  assert.ok(semver.satisfies('0.2.3', '^0.2.3'))
  assert.ok(semver.satisfies('0.2.9', '^0.2.3'))
  assert.ok(!semver.satisfies('0.3.0', '^0.2.3'))
})

test('caret ranges on 0.0.x allow nothing else', () => {
  assert.ok(semver.satisfies('0.0.3', '^0.0.3'))
  assert.ok(!semver.satisfies('0.0.4', '^0.0.3'))
})
