'use strict'

/**
 * The name to show for `user` in the UI: "First Last" if both parts are
 * known, else the nickname, else the e-mail's local part, else "unknown".
 * @param {{first?: string, last?: string, nickname?: string, email?: string}} user
 * @returns {string}
 */
function getUserName (user) {
  const first = (user.first || '').trim()
  const last = (user.last || '').trim()
  if (first && last) return `${first} ${last}`
  if (user.nickname) return user.nickname
  if (user.email) return user.email.split('@')[0]
  return first || last || 'unknown'
}

/**
 * Sort users by their displayed name (case-insensitive).
 * @param {Array<object>} users
 */
function sortUsers (users) {
  return [...users].sort((a, b) =>
    getUserName(a).localeCompare(getUserName(b), 'en', { sensitivity: 'base' }))
}

module.exports = { getUserName, sortUsers }
