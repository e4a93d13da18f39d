'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const semver = require('..')

const include = [
  ['^0.2.3', '0.2.3'], ['^0.2.3', '0.2.99'], ['^0.1.0', '0.1.5'], ['^0.0.1', '0.0.1'],
  ['^0.2', '0.2.9'], ['^0.x', '0.9.0'], ['^0.2.3-beta.2', '0.2.3-beta.4'], ['^0.2.3-beta', '0.2.5'],
  ['^1.2.3', '1.8.1'], ['^1.2', '1.4.0'], ['^1', '1.99.0'], ['^1.2.3-alpha', '1.2.3-beta'],
  ['~0.2.3', '0.2.5'], ['~1.2', '1.2.9'], ['>=0.2.3 <0.3.0', '0.2.8'], ['0.2.x', '0.2.7'],
  ['1.2.3 - 2.3.4', '2.3.4'], ['^0.2.3 || ^1.0.0', '1.5.0'],
]
const exclude = [
  ['^0.2.3', '0.3.0'], ['^0.2.3', '0.3.1'], ['^0.2.3', '1.0.0'], ['^0.1.0', '0.2.0'],
  ['^0.5.0', '0.6.0'], ['^0.0.1', '0.0.2'], ['^0.2', '0.3.0'], ['^0.2.3-beta.2', '0.3.0'],
  ['^0.2.3', '0.2.4-rc.1'], ['^1.2.3', '2.0.0'], ['^1.2.3', '1.2.2'], ['~0.2.3', '0.3.0'],
  ['^0.2.3 || ^1.0.0', '0.4.0'],
]

test('satisfies: included', () => {
  for (const [range, version] of include) {
    assert.ok(semver.satisfies(version, range), `${version} should satisfy ${range}`)
  }
})

test('satisfies: excluded', () => {
  for (const [range, version] of exclude) {
    assert.ok(!semver.satisfies(version, range), `${version} should not satisfy ${range}`)
  }
})

test('caret desugaring', () => {
  assert.equal(new semver.Range('^0.2.3').range, '>=0.2.3 <0.3.0-0')
  assert.equal(new semver.Range('^0.0.3').range, '>=0.0.3 <0.0.4-0')
  assert.equal(new semver.Range('^1.2.3').range, '>=1.2.3 <2.0.0-0')
  assert.equal(new semver.Range('^0.2.3', { includePrerelease: true }).range, '>=0.2.3-0 <0.3.0-0')
  assert.equal(semver.validRange('^0.4.1'), '>=0.4.1 <0.5.0-0')
})

test('range helpers use the same caret rules', () => {
  assert.equal(semver.maxSatisfying(['0.2.3', '0.2.9', '0.3.0', '1.0.0'], '^0.2.3'), '0.2.9')
  assert.equal(semver.minVersion('^0.2.3').version, '0.2.3')
  assert.ok(semver.gtr('0.3.0', '^0.2.3'))
  assert.ok(!semver.intersects('^0.2.3', '^0.3.0'))
  assert.ok(semver.subset('^0.2.5', '^0.2.3'))
  assert.ok(!semver.subset('^0.2.3', '<0.2.9'))
})
