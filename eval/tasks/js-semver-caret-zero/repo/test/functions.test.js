'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const semver = require('..')

test('parse and compare', () => {
  assert.equal(semver.valid('1.2.3'), '1.2.3')
  assert.equal(semver.valid('a.b.c'), null)
  assert.ok(semver.gt('1.2.4', '1.2.3'))
  assert.ok(semver.lt('1.2.3-beta.1', '1.2.3'))
  assert.deepEqual(['1.10.0', '1.2.0', '1.9.9'].sort(semver.compare), ['1.2.0', '1.9.9', '1.10.0'])
})

test('inc', () => {
  assert.equal(semver.inc('1.2.3', 'minor'), '1.3.0')
  assert.equal(semver.inc('1.2.3', 'prerelease', 'rc'), '1.2.4-rc.0')
  assert.equal(semver.inc('1.2.4-rc.0', 'prerelease'), '1.2.4-rc.1')
})

test('tilde and x ranges', () => {
  assert.ok(semver.satisfies('1.2.9', '~1.2.3'))
  assert.ok(!semver.satisfies('1.3.0', '~1.2.3'))
  assert.ok(semver.satisfies('1.5.0', '1.x'))
})
