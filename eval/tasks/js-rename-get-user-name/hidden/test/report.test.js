'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { activeUsersReport, welcomeBanner } = require('../src')

test('report lists active users by name', () => {
  const text = activeUsersReport([
    { first: 'Zoe', last: 'Z', active: true },
    { nickname: 'max', active: false },
    { email: 'amy@x.org', active: true },
  ])
  assert.equal(text, 'Active users: 2\n- amy\n- Zoe Z')
})

test('banner', () => {
  assert.equal(welcomeBanner({ nickname: 'kim' }, new Date(2024, 0, 1, 9)), 'Good morning, kim!')
})
